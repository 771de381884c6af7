// Rewrite kind "method-to", which a migration target other than torch_npu needs: `.cuda(...)`
// replaced by `.to(<device>, ...)`, an index argument i by `.to(<indexed>)`. Yields the edit, or
// says why it cannot.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/core/match.h"

namespace banjia::rules {

// The edit at `.cuda(` whose name is at sig index name_sig (index_names: the names the device-index
// rule knows to hold integer device indices), or nullopt with `why` said.
std::optional<TextEdit> method_to_edit(const PythonAnalysis& a, uint32_t name_sig, const Rule& r,
                                       const std::vector<std::string>& index_names, std::string& why);

}  // namespace banjia::rules
