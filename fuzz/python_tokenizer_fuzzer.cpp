// Python front-end: tokenizer (both f-string modes), module view, import table, dotted names and
// call arguments. Property: the token texts tile the input exactly (concatenate to it), in order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "python/module.h"
#include "python/tokenizer.h"

using namespace banjia::python;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  for (FStringMode mode : {FStringMode::py311, FStringMode::py312}) {
    TokenStream ts = tokenize(src, mode);
    std::string joined;
    joined.reserve(size);
    uint32_t expect_begin = 0;
    for (const Token& t : ts.tokens) {
      FUZZ_CHECK(t.begin == expect_begin && t.end >= t.begin && t.end <= size, "tokens tile the input");
      joined += t.text(src);
      expect_begin = t.end;
    }
    FUZZ_CHECK(joined == src, "token texts concatenate to the input");

    ModuleView view = build_view(src, ts);
    FUZZ_CHECK(view.match.size() == view.sig.size(), "one match entry per significant token");
    for (size_t i = 0; i < view.match.size(); ++i) {
      int32_t m = view.match[i];
      FUZZ_CHECK(m == -1 || (static_cast<size_t>(m) < view.sig.size() && view.match[m] == static_cast<int32_t>(i)),
                 "bracket matches are symmetric");
    }
    ImportTable imports = collect_imports(view);
    for (const auto& b : imports.bindings) (void)imports.resolve(b.local);
    DottedNames names = resolve_dotted_names(view, imports);
    for (const auto& r : names.refs) {
      FUZZ_CHECK(r.first_sig <= r.last_sig && r.last_sig < view.sig.size(), "ref inside the module");
      FUZZ_CHECK(r.qualified.empty() || (r.qualified.data() >= names.text.data() &&
                                         r.qualified.data() + r.qualified.size() <= names.text.data() + names.text.size()),
                 "qualified name inside its buffer");
      if (r.call_open_sig != kNoIndex) {
        auto args = call_arguments(view, r.call_open_sig);
        (void)find_keyword(args, "device");
        (void)find_positional(args, 0);
      }
    }
  }
  return 0;
}
