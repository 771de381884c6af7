// Internal: the shape of one import statement, shared by collect_imports and resolve_dotted_names;
// implemented in module_imports.cpp.
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
// The same, appended to `out` (a std::string, or the std::vector<char> of DottedNames::text).
template <class Out>
void append_joined_names(const ModuleView& view, const std::vector<uint32_t>& name_sigs, Out& out, size_t from = 0) {
  for (size_t i = from; i < name_sigs.size(); ++i) {
    if (i > from) out.push_back('.');
    const std::string_view name = view.text(name_sigs[i]);
    out.insert(out.end(), name.begin(), name.end());
  }
}

}  // namespace banjia::python::detail
