// Match kinds "qualified" (a dotted name resolved through imports: torch.cuda.X, DataParallel) and
// "import" (an import of one of `modules`). One matcher serves both: a replace-module rewrite edits a
// name's import and its uses together.
#pragma once
#include <unordered_map>

#include "common/string_hash.h"
#include "rules/core/kind.h"

namespace banjia::rules {

struct Rule;

// The kind's index of a catalogue (qualified_index.cpp): which rule a dotted name or an imported
// module falls under. Built once per catalogue (RuleCatalog::index_of<QualifiedMatch>), asked for
// every dotted name of every file scanned.
class QualifiedIndex {
 public:
  explicit QualifiedIndex(const RuleCatalog& rules);

  // The qualified rule with the longest name matching `qualified` (exact, or prefix for prefix rules).
  const Rule* match_qualified(std::string_view qualified) const;
  // Cheap pre-check (no allocation): can any qualified, keyword-arg or loop-call rule match a name
  // with this first component?
  bool has_qualified_root(std::string_view first_component) const;
  // The import rule whose module is `module` or a parent of it.
  const Rule* match_import(std::string_view module) const;

 private:
  // Transparent hashing: lookups by string_view allocate nothing (scan looks up every dotted name).
  std::unordered_map<std::string, const Rule*, StringHash, std::equal_to<>> import_modules_;
  std::vector<std::string> qualified_roots_;
  // Every dotted prefix of every qualified rule name ("torch", "torch.cuda", "torch.cuda.amp", ...),
  // with the rules named exactly there: match_qualified looks up each prefix of a name once and
  // stops as soon as no rule can lie below it.
  struct QualifiedNode {
    const Rule* exact = nullptr;
    const Rule* prefix = nullptr;
    const Rule* exact_only = nullptr;
  };
  std::unordered_map<std::string, QualifiedNode, StringHash, std::equal_to<>> qualified_tree_;
};

struct QualifiedMatch {
  static constexpr std::string_view kName = "qualified";
  using Index = QualifiedIndex;
  std::vector<std::string> names;  // dotted API names (torch.cuda.synchronize)
  bool prefix = false;      // the names are prefixes: everything below them matches
  bool exact_only = false;  // only the name itself, not attribute chains on it
  // Fire only where the name is a torch.ops.aten op without an NPU kernel (data/ops).
  bool only_without_npu_kernel = false;
  // What the NPU counterpart of a call returns, where it differs (safety/rewrite_safety_result_uses.cpp): the rewrite
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
