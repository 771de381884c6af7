// Rewrite kind "rename-call", which a migration target other than torch_npu needs
// ([rule.target.NAME] in data/rules): a name replaced by another name, by a call with extra arguments
// or by a whole-call template with `{args}`. Yields the edit, or says why it cannot.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "python/module.h"
#include "rules/core/match.h"

namespace banjia::rules {

// The edit at a use of a qualified name (closing: what a whole-call template writes in place of the
// call's ")"; inserts: keywords for arguments the new function takes by keyword), or nullopt with
// `why` said.
std::optional<TextEdit> rename_call_edit(const PythonAnalysis& a, const python::DottedRef& ref, const Rule& r,
                                         std::optional<TextEdit>& closing, std::vector<TextEdit>& inserts, std::string& why);

}  // namespace banjia::rules
