// The table of docs/sources/tuning-article.md ("6. Monitoring") computed for real: per-run statistics and,
// for every run after the first, each metric's ratio to the baseline with a bootstrap confidence interval
// and a verdict.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/policy.h"
#include "bench/run.h"
#include "bench/statistics.h"

namespace banjia::bench {

struct RunStats {
  Run run;
  SampleSummary time;                         // of run.times_ms
  std::optional<double> throughput_per_s;     // batch_size / median step time
  std::optional<double> power_median_w;
  std::optional<double> energy_per_sample_j;  // median power * median step time / batch_size
  std::vector<std::string> warnings;          // too short, too noisy, skipped values (outliers are a table row)
};

// Whether "better" means a smaller (time, memory, power, energy) or larger (throughput) value.
enum class Direction { lower_is_better, higher_is_better };

struct MetricComparison {
  std::string metric;   // "step_time", "throughput", "peak_memory", "power", "energy_per_sample"
  Direction direction = Direction::lower_is_better;
  double ratio = 0;     // other / baseline
  std::optional<double> ci_low, ci_high;  // absent when there is no interval (see no_ci_reason)
  // "faster", "slower", "lower", "higher", "no significant difference", or "inconclusive" when there is
  // no interval or a run behind the metric was flagged too short or too noisy to conclude.
  std::string verdict;
  std::string no_ci_reason;        // "1 reading", "no spread"; empty when there is an interval
  std::string inconclusive_reason; // why the verdict is "inconclusive"; empty otherwise
};

struct BenchComparison {
  Policy policy;
  std::vector<RunStats> runs;                          // runs[0] is the baseline
  std::vector<std::vector<MetricComparison>> vs_baseline;  // one list per run; empty for the baseline
  std::vector<std::string> warnings;                   // about the comparison as a whole
};

BenchComparison compare_runs(std::vector<Run> runs, const Policy& policy);

// True when some run's step time is significantly slower than the baseline's.
bool any_significantly_slower(const BenchComparison& c);
// True when there is any warning, per run or overall.
bool any_warning(const BenchComparison& c);

}  // namespace banjia::bench
