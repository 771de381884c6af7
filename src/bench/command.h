// `banjia bench compare`'s entry point: the verb's options as the CLI layer (cli/verbs_bench.cpp) parses them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/output_options.h"

namespace banjia::bench {

struct BenchCompareOptions {
  std::vector<std::string> files;  // the baseline, then the other runs
  std::string labels;  // comma-separated; split here so the option never swallows the file arguments
  double batch_size = 0;    // for runs that do not record it; 0: none
  std::string sample_unit;  // empty: as recorded
  int64_t seed = -1;        // negative: data/bench/policy.toml's
  int resamples = 0;        // 0: data/bench/policy.toml's
};

// Loads and compares the runs, writes the table (and --html); returns the process exit code: a run
// significantly slower than the baseline is an error, any other warning a warning (see --fail-on).
int compare_bench_runs(const BenchCompareOptions& options, const OutputOptions& out);

}  // namespace banjia::bench
