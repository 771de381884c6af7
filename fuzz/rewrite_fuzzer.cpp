// Rewrite engine (migrate::rewrite_python) with the built-in rule catalogue. Properties: when the
// input tokenizes without error so does the output, and rewriting the output changes nothing
// (migrating twice equals migrating once); a comparison with "npu" that migrate wrote never meets a
// "cuda" value still stored under the same name (device_invariant.h). Also the scan prefilter's
// soundness: a file it turns away has no match (rules/analyses/python_prefilter.h). The accelerator target
// (migrate --target accelerator) must keep the first two properties too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "device_invariant.h"
#include "fuzz_check.h"
#include "migrate/python_rewriter.h"
#include "python/source.h"
#include "python/tokenizer.h"
#include "rules/analyses/python_prefilter.h"
#include "rules/core/match.h"
#include "rules/sources/python_scanner.h"

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

void check_prefilter(std::string_view src, const rules::RuleCatalog& rules) {
  static const rules::PythonPrefilter filter = rules::PythonPrefilter::for_rules(rules);
  rules::PythonAnalysis a;
  try {
    rules::analyse_python(src, "fuzz.py", a);
  } catch (const InputError&) {
    return;  // scan reports the input error; the filter is not asked
  }
  if (!filter.may_match(a.text(), a.tokens))
    FUZZ_CHECK(rules::match_python(a, rules).empty(), "the prefilter turns away only files without a match");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  const auto& rules = rules::RuleCatalog::builtin();
  check_prefilter(src, rules);
  for (std::string_view target : {rules::kTargetNpu, rules::kTargetAccelerator}) {
    const auto& target_rules = *rules::RuleCatalog::for_target(target);
    for (bool annotate : {false, true}) {
      migrate::RewriteOptions opt;
      opt.annotate = annotate;
      opt.target = std::string(target);
      migrate::FileRewrite once = migrate::rewrite_python(src, "fuzz.py", target_rules, opt);
      if (!once.changed()) continue;
      if (tokenizes(src)) FUZZ_CHECK(tokenizes(once.rewritten), "rewritten output tokenizes");
      migrate::FileRewrite twice = migrate::rewrite_python(once.rewritten, "fuzz.py", target_rules, opt);
      FUZZ_CHECK(twice.rewritten == once.rewritten, "rewriting is idempotent");
      // The invariant is stated on "npu" values, which only the npu target writes.
      if (!annotate && target == rules::kTargetNpu)
        FUZZ_CHECK(device_invariant_violation(once.rewritten, once.original).empty(),
                   "no comparison rewritten while a value stored under its name stays");
    }
  }
  return 0;
}
