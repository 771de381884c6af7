// Environment-variable names in Python code: which look CUDA/NCCL-specific (prefixes in the
// `env-name` rules of data/rules/environment.toml) and their Ascend equivalents (data/env, through
// src/env/translate.h — the same table `banjia env translate` and shell rewriting use).
#include <array>

#include "env/translate.h"
#include "scan/python_matches.h"

namespace banjia::scan {

const EnvNameTable& builtin_env_names() {
  static const EnvNameTable table = [] {
    std::vector<std::string> prefixes;
    for (const Rule* r : RuleCatalog::builtin().of_kind(MatchKind::env_name))
      prefixes.insert(prefixes.end(), r->prefixes.begin(), r->prefixes.end());
    EnvNameTable t;
    t.equivalent = [](std::string_view name) { return ascend_equivalent(name); };
    // Every string literal of a file is asked; one table load turns away the ones (nearly all) whose
    // first byte starts no prefix before any comparison.
    std::array<bool, 256> first{};
    for (const auto& p : prefixes)
      if (!p.empty()) first[static_cast<unsigned char>(p[0])] = true;
    t.is_cuda_name = [prefixes, first](std::string_view name) {
      if (name.empty() || !first[static_cast<unsigned char>(name[0])]) return false;
      for (const auto& p : prefixes)
        if (name.starts_with(p) && name.size() > p.size()) return true;
      return false;
    };
    return t;
  }();
  return table;
}

}  // namespace banjia::scan
