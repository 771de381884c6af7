// The statistical policy of `bench compare` (thresholds, bootstrap settings), read from the
// embedded data/bench/policy.toml so every number carries its source.
#pragma once
#include <cstdint>
#include <string>

namespace banjia::bench {

struct Policy {
  int min_iterations = 0;
  double max_cv = 0;
  double confidence = 0;
  int bootstrap_resamples = 0;
  uint64_t bootstrap_seed = 0;
  double tukey_k = 0;
};

// Parses policy TOML text (`[[setting]]` tables with name, value, source). Throws InputError when a
// setting is missing, has no source, or is out of range.
Policy parse_policy(const std::string& toml_text, const std::string& file_for_errors);

// The policy compiled into the binary (data/bench/policy.toml).
const Policy& default_policy();

}  // namespace banjia::bench
