// Internal: the shape of one import statement, shared by collect_imports and resolve_dotted_names.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "python/module.h"

namespace banjia::python::detail {

struct ImportItem {
  std::vector<uint32_t> name_sigs;  // dotted name components (one for from-imports), or the '*'
  uint32_t alias_sig = kNoIndex;
  bool star = false;
};

struct ImportStmt {
  bool is_from = false;
  std::string dots;                   // relative-import dots of `from ..pkg import x`
  std::vector<uint32_t> module_sigs;  // `from` module name components
  std::vector<ImportItem> items;
};

// Parses `import a.b as c, d` / `from ..a.b import (c as d, e)` / `from x import *`.
// nullopt when the statement is not an import (or is too malformed to read).
std::optional<ImportStmt> parse_import(const ModuleView& view, const ModuleView::Statement& stmt);

// Joins the texts of name components with '.'.
std::string join_names(const ModuleView& view, const std::vector<uint32_t>& name_sigs, size_t from = 0);

}  // namespace banjia::python::detail
