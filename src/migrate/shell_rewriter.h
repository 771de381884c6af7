// Rewrites CUDA/NCCL environment variables in shell scripts to their Ascend equivalents, using the
// same translation as `banjia env translate` (src/env/analysis/translate.h).
#pragma once
#include <string>
#include <string_view>

#include "migrate/change.h"
#include "rules/core/catalog.h"

namespace banjia::migrate {

// `target_torch_npu`: see TranslateOptions (allocator options newer than the target are dropped).
FileRewrite rewrite_shell(std::string_view bytes, const std::string& display, const std::string& target_torch_npu = "");

// For targets that keep shell scripts as they are (accelerator: a CUDA variable is renamed for one
// device, which would break the others): the file unchanged, its scan findings as leftovers.
FileRewrite report_shell(std::string_view bytes, const std::string& display, const rules::RuleCatalog& rules);

}  // namespace banjia::migrate
