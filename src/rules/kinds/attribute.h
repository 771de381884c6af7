// Match kind "attribute": `.name` on any expression (`.cuda()`, `.is_cuda`).
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct AttributeMatch {
  static constexpr std::string_view kName = "attribute";
  std::string name;
  std::optional<bool> call;  // must (true) or must not (false) be called; either when absent

  static AttributeMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
