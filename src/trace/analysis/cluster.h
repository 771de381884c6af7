// Cluster view over several ranks: per-rank step time and breakdown, and msprof-analyze's slow-rank
// rule: a metric (compute, communication, free/idle) whose (max - min) / mean exceeds 5% flags the
// rank with the maximum (mstt : advisor/analyzer/cluster/slow_rank_analyzer.py, RATIO_THRESHOLD 0.05).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "trace/analysis/summary.h"

namespace banjia::trace {

struct RankRow {
  std::string file;
  std::optional<int64_t> rank;  // the rank the profiler recorded
  double step_us = 0, compute_us = 0, comm_us = 0, memory_us = 0, idle_us = 0;  // mean per step
};

struct SlowMetric {
  std::string metric;
  double gap_ratio = 0;
  size_t slowest = 0;  // index into ranks
  bool flagged = false;
};

struct ClusterView {
  std::vector<RankRow> ranks;
  std::vector<SlowMetric> metrics;
  bool slow_rank = false;
};

constexpr double kSlowRankRatio = 0.05;

ClusterView cluster_view(const std::vector<Summary>& ranks);

}  // namespace banjia::trace
