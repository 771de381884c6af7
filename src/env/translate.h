// Rewriting CUDA/NCCL environment variables to their Ascend equivalents in shell scripts, .env files and
// Dockerfiles. Shared by `banjia env translate` and `banjia migrate` (for .sh files). Only pairs in
// data/env/cuda.toml marked automatic are renamed; everything else is left byte for byte and reported.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "env/env_file.h"

namespace banjia {

struct ShellEdit {
  size_t begin = 0, end = 0;  // byte range in the original text
  std::string before, after;
  int line = 0, column = 0;   // 1-based; column in code points
  std::string rule, source;
};

// Translates a shell script. `edits` receives every change (in text order); `notes` (when given) receives
// findings about what was left alone (no documented equivalent, unresolved values, dropped allocator
// options). Idempotent: translating the result again changes nothing.
std::string translate_shell_env(std::string_view text, std::vector<ShellEdit>& edits,
                                std::vector<Finding>* notes = nullptr);

// The same for any environment file kind (shell, .env, Dockerfile).
std::string translate_env_file(std::string_view text, env::EnvFileKind kind, std::vector<ShellEdit>& edits,
                               std::vector<Finding>* notes = nullptr);

// The Ascend variable torch_npu reads instead of a CUDA one (CUDA_VISIBLE_DEVICES ->
// ASCEND_RT_VISIBLE_DEVICES), for rewriting Python code such as os.environ["CUDA_VISIBLE_DEVICES"].
std::optional<std::string> ascend_equivalent(std::string_view cuda_name);

}  // namespace banjia
