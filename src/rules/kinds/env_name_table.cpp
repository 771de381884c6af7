// Environment-variable names in Python code: which look CUDA/NCCL-specific (prefixes in the
// `env-name` rules of data/rules/environment.toml) and their Ascend pairs (data/env/cuda.toml, through
// env/model/knowledge_base.h — the same table `banjia env translate` and shell rewriting use).
#include "env/model/knowledge_base.h"
#include "rules/core/catalog.h"
#include "rules/kinds/env_name.h"

namespace banjia::rules {

bool EnvNameTable::is_cuda_name(std::string_view name) const {
  for (const auto& p : cuda_prefixes)  // asked for every string literal: the first byte turns most away
    if (name.size() > p.size() && name[0] == p[0] && name.starts_with(p)) return true;
  return false;
}

const EnvNameTable& builtin_env_names() {
  static const EnvNameTable table = [] {
    EnvNameTable t;
    for (const Rule* r : RuleCatalog::builtin().of_kind<EnvNameMatch>()) {
      const auto& prefixes = r->params<EnvNameMatch>().prefixes;
      t.cuda_prefixes.insert(t.cuda_prefixes.end(), prefixes.begin(), prefixes.end());
    }
    t.pair = [](std::string_view name) { return env::cuda_name_pairs().cuda_pair(name); };
    return t;
  }();
  return table;
}

}  // namespace banjia::rules
