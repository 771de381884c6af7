// Verdicts per compared pair: msprobe's "Accuracy Reached or Not" rule (for comparability with
// msprobe), a dtype-aware verdict (torch.testing tolerances), and msprobe's statistics-mode rule.
// Thresholds come from data/compare/*.toml.
#pragma once
#include <optional>
#include <string>

#include "compare/model/dump_model.h"
#include "compare/analysis/metrics.h"

namespace banjia::compare {

struct MsprobeThresholds {
  double cos_threshold, max_abs_err_threshold, cos_max_threshold, max_abs_err_max_threshold;
  double summary_magnitude, summary_epsilon;
};

const MsprobeThresholds& msprobe_thresholds();

// torch.testing tolerance for a dtype name ("float16", "torch.bfloat16"); unknown/integer -> (0, 0).
Tolerance tolerance_for(const std::string& dtype);
// The looser of two dtypes' tolerances (assert_close with mixed dtypes).
Tolerance tolerance_for_pair(const std::string& dtype_a, const std::string& dtype_b);

// "Yes" or "No" per msprobe's check_accuracy; a non-finite position mismatch is "No".
std::string msprobe_accuracy(const PairMetrics& m);

struct StatsDiff {
  // max, min, mean, norm: a - b, and |diff / b| (nullopt when b == 0 or unknown)
  std::optional<double> diff[4], rel[4];
  bool warning = false;  // msprobe's "Need double check api accuracy."
  bool any = false;      // at least one statistic present on both sides
};

StatsDiff compare_stats(const SummaryStats& a, const SummaryStats& b);

}  // namespace banjia::compare
