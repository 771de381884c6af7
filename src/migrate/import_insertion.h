// Where `import torch_npu` goes in a file that migrate changed. torch.npu exists only once torch_npu
// is imported, so the import must precede any statement that (after rewriting) imports torch.npu.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "rules/analyses/python_analysis.h"
#include "rules/core/match.h"

namespace banjia::migrate {

bool imports_torch_npu(const rules::PythonAnalysis& a);

// The zero-width edit inserting `import torch_npu`: right after the first module-level torch import,
// or right before it when that import is itself rewritten to torch.npu; after the docstring and
// `from __future__` imports when the file imports no torch at module level.
rules::TextEdit torch_npu_import_edit(const rules::PythonAnalysis& a, const std::vector<rules::TextEdit>& applied);
// The same placement for `import <module>` (the accelerator target inserts `import torch`).
rules::TextEdit module_import_edit(const rules::PythonAnalysis& a, const std::vector<rules::TextEdit>& applied,
                                  std::string_view module);

// Whether code naming the module `name` (torch) needs `import name` at module level: no module-level
// `import name` binds it, and the name is not bound to anything else.
bool needs_module_import(const rules::PythonAnalysis& a, std::string_view name);

// Where the physical line holding `offset` starts or, when that line continues an earlier one (after
// a backslash, or inside a string that spans lines), where the first of those lines starts: the
// only place a whole line can be inserted above the statement without joining it.
size_t first_line_of_logical_line(const rules::PythonAnalysis& a, size_t offset);

// "\r\n" when the file's first line ends with CRLF, "\r" for old-Mac files, else "\n".
std::string line_ending_of(std::string_view text);

}  // namespace banjia::migrate
