// Rewrites CUDA/NCCL environment variables in shell scripts to their Ascend equivalents, using the
// same translation as `banjia env translate` (src/env/translate.h).
#pragma once
#include <string>
#include <string_view>

#include "migrate/change.h"

namespace banjia::migrate {

FileRewrite rewrite_shell(std::string_view bytes, const std::string& display);

}  // namespace banjia::migrate
