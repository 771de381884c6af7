// Match kind "module-use": a module with no NPU build (a prebuilt CUDA extension such as rotary_emb,
// or a CUDA-only library such as transformer_engine), reported where it is imported and at every use
// of a name imported from it: the import is what fails on an Ascend machine, and each use is code
// that must change with it.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct ModuleUseMatch {
  static constexpr std::string_view kName = "module-use";
  std::vector<std::string> modules;  // each with its submodules

  static ModuleUseMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
