// Match kinds "qualified" (a dotted name resolved through imports: torch.cuda.X, DataParallel) and
// "import" (an import of one of `modules`). One matcher serves both: a replace-module rewrite edits a
// name's import and its uses together.
#pragma once
#include "rules/kinds/kind.h"

namespace banjia::rules {

struct QualifiedMatch {
  static constexpr std::string_view kName = "qualified";
  std::vector<std::string> names;  // dotted API names (torch.cuda.synchronize)
  bool prefix = false;      // the names are prefixes: everything below them matches
  bool exact_only = false;  // only the name itself, not attribute chains on it
  // Fire only where the name is a torch.ops.aten op without an NPU kernel (data/ops).
  bool only_without_npu_kernel = false;
  // What the NPU counterpart of a call returns, where it differs (safety/result_uses.cpp): the rewrite
  // stays automatic only where the result is used in ways that hold for it. `returns_none`: it returns
  // None (only printing or discarding it is safe); `result_fields`: the fields its result has (reading
  // another one is not safe).
  bool returns_none = false;
  std::vector<std::string> result_fields;

  static QualifiedMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

// Matched by QualifiedMatch::match.
struct ImportMatch {
  static constexpr std::string_view kName = "import";
  std::vector<std::string> modules;  // a module or any submodule of it

  static ImportMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
};

}  // namespace banjia::rules
