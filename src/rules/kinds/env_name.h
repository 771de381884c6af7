// Match kind "env-name": a CUDA/NCCL environment variable name used as one (os.environ, getenv, an
// env= dict). A rule with `names` lists the variables whose value is a device list.
#pragma once
#include <functional>

#include "rules/core/kind.h"

namespace banjia::env {
struct CudaPair;  // env/model/knowledge_base.h
}  // namespace banjia::env
namespace banjia::rules {

// Resolves environment variable names, for this kind's matcher and the configuration scanner
// (env_name_table.cpp fills it from the env knowledge base).
struct EnvNameTable {
  // The documented CUDA -> Ascend pair of a variable (data/env/cuda.toml), or nullptr: whether it is
  // renamed (`automatic`), to what, with which note and source, and how its values map.
  std::function<const env::CudaPair*(std::string_view)> pair;
  // Names that look CUDA/NCCL-specific start with one of these (CUDA_, NCCL_, PYTORCH_CUDA_, ...).
  std::vector<std::string> cuda_prefixes;
  bool is_cuda_name(std::string_view name) const;
};
// The table of the built-in catalogue and knowledge base.
const EnvNameTable& builtin_env_names();

struct EnvNameMatch {
  static constexpr std::string_view kName = "env-name";
  std::vector<std::string> names;     // variables whose value is a CUDA device list
  std::optional<bool> equivalent;     // the rule for names with (true) or without an Ascend equivalent
  std::vector<std::string> prefixes;  // names starting with these are CUDA/NCCL-specific (CUDA_, NCCL_)

  static EnvNameMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
