// `scan` for shell scripts: CUDA/NCCL environment variables set in launch scripts.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "rules/core/catalog.h"

namespace banjia::rules {

void scan_shell(std::string_view text, const std::string& display, const RuleCatalog& rules, std::vector<Finding>& out);

}  // namespace banjia::rules
