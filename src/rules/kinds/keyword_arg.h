// Match kind "keyword-arg": a call of one of the rule's `names` passing `keyword=`
// (load_inline(cuda_sources=...)), or, with `values`, passing it one of those string literals
// (torch.compile(mode="reduce-overhead")), or, with `defaults`, passing anything but one of those
// (`softcap=0.0` asks for what flash_attn does anyway). The call may be a decorator (`@torch.compile(...)`).
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct KeywordArgMatch {
  static constexpr std::string_view kName = "keyword-arg";
  std::vector<std::string> names;  // the callables, dotted
  std::string keyword;
  std::vector<std::string> values;  // empty: any value; else the literal must be one of these
  // The callee's default, as code writes it (`None`, `False`, `0.0`): an argument written so is not
  // reported.
  std::vector<std::string> defaults;

  static KeywordArgMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
