// Match kind "config-value": a value in a configuration file (YAML, JSON, TOML) that names CUDA.
// config_scanner.cpp matches it on the file's parsed scalars, so it has no Python needles or matcher.
// `role` says what the rule looks for (config_scanner.h lists the roles); `keys` are the keys that
// decide it: those whose value is a device or a backend, or those an environment sits under; `values`
// are the values an `attention` rule reports.
#pragma once
#include "rules/core/kind.h"
#include "rules/core/match_fields.h"

namespace banjia::rules {

struct ConfigValueMatch {
  static constexpr std::string_view kName = "config-value";
  std::string role;               // device, backend, env, fp8, attention, other
  std::vector<std::string> keys;  // matched without regard to case
  std::vector<std::string> values;  // role attention: the attention implementation names it reports

  static ConfigValueMatch parse(const MatchFields& m) { return {m.text("role"), m.strings("keys"), m.strings("values")}; }
};

}  // namespace banjia::rules
