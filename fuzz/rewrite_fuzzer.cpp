// Rewrite engine (migrate::rewrite_python) with the built-in rule catalogue. Properties: when the
// input tokenizes without error so does the output, and rewriting the output changes nothing
// (migrating twice equals migrating once).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "fuzz_check.h"
#include "migrate/python_rewriter.h"
#include "python/source.h"
#include "python/tokenizer.h"

using namespace banjia;

namespace {
// True when the bytes decode and tokenize without error (what migrate needs to rewrite a file).
bool tokenizes(std::string_view bytes) {
  try {
    python::SourceFile sf = python::decode_source(bytes, "fuzz.py");
    return !python::tokenize(sf.text).error.has_value();
  } catch (const InputError&) {
    return false;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  const auto& rules = scan::RuleCatalog::builtin();
  for (bool annotate : {false, true}) {
    migrate::RewriteOptions opt;
    opt.annotate = annotate;
    migrate::FileRewrite once = migrate::rewrite_python(src, "fuzz.py", rules, opt);
    if (!once.changed()) continue;
    if (tokenizes(src)) FUZZ_CHECK(tokenizes(once.rewritten), "rewritten output tokenizes");
    migrate::FileRewrite twice = migrate::rewrite_python(once.rewritten, "fuzz.py", rules, opt);
    FUZZ_CHECK(twice.rewritten == once.rewritten, "rewriting is idempotent");
  }
  return 0;
}
