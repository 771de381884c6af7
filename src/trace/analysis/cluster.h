// Cluster view over several ranks: per-rank step time and breakdown, and msprof-analyze's slow-rank
// rule: a metric (compute, communication, free/idle) whose (max - min) / mean exceeds 5% flags the
// rank with the maximum (mstt : advisor/analyzer/cluster/slow_rank_analyzer.py, RATIO_THRESHOLD 0.05).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "trace/analysis/communication.h"
#include "trace/analysis/summary.h"

namespace banjia::trace {

struct RankRow {
  std::string file;
  std::optional<int64_t> rank;  // the rank the profiler recorded
  double step_us = 0, compute_us = 0, comm_us = 0, memory_us = 0, idle_us = 0;  // mean per step
  // Pipeline parallelism, where the profiler knows the stages (torch_npu's step_trace_time.csv
  // Stage and Bubble, mean per step): this rank's stage time and the bubble within it.
  std::optional<double> stage_us, bubble_us;
};

struct SlowMetric {
  std::string metric;
  double gap_ratio = 0;
  size_t slowest = 0;  // index into ranks
  bool flagged = false;
};

// Who sets the pace and who waits for it. In synchronous training every rank's step lasts as long as
// the slowest one's, so the time of a step splits into a rank's own work on the device (compute and
// memory copies) and waiting (exposed communication and idle time). The rank with the most own work
// is the one the others wait for (the culprit); a rank flagged on communication or idle time whose
// own work is not the largest spends that time waiting for it (a victim).
struct Culprit {
  size_t index = 0;        // into ranks
  double own_us = 0;       // its compute + memory per step
  double median_own_us = 0;
  double gap_ratio = 0;    // (max - min) / mean of own work across ranks
};

struct WaitingRank {
  size_t index = 0;    // into ranks
  double wait_us = 0;  // its comm + idle per step
  double excess_us = 0;  // above the least-waiting rank's
};

struct ClusterView {
  std::vector<RankRow> ranks;
  std::vector<SlowMetric> metrics;
  bool slow_rank = false;
  std::optional<Culprit> culprit;     // set when own work differs by more than kSlowRankRatio
  std::vector<WaitingRank> waiting;   // ranks (culprit excepted) waiting more than kSlowRankRatio of
                                      // the mean step beyond the least-waiting rank, most first
  CommunicationView communication;
};

ClusterView cluster_view(const std::vector<Summary>& ranks);

// The rank the profiler recorded for ranks[i], else its position among the inputs.
int64_t rank_of(const ClusterView& c, size_t i);

}  // namespace banjia::trace
