// What `banjia trace summary` reports for one trace: per-step and overall device time breakdown,
// kernel classes, top ops and kernels, launch delays, sync points, transfers, casts and NPU extras.
// Field names here are the JSON field names documented in docs/trace.md.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "trace/model/profiler_run.h"

namespace banjia::trace {

// Device time of one window (a step or the whole trace) on one device, in µs. Overlaps count once:
// compute first, then communication not hidden by compute, then memory not hidden by either
// (HTA's temporal breakdown); idle = wall - busy.
struct Breakdown {
  double wall_us = 0, compute_us = 0, comm_us = 0, memory_us = 0, idle_us = 0;
  double busy_us() const { return compute_us + comm_us + memory_us; }
};

struct StepStats {
  std::string name;  // "ProfilerStep#N" or "all"
  int64_t start_ns = 0, end_ns = 0;
  Breakdown breakdown;         // of the primary device
  size_t kernels = 0;          // device compute kernels attributed to the step
  double kernel_median_us = 0;
  size_t sync_points = 0;      // sync API calls + scalar reads (events.toml [sync])
  size_t h2d_count = 0, d2h_count = 0;
  int64_t h2d_bytes = 0, d2h_bytes = 0;
  size_t dtype_casts = 0;
  size_t compile_events = 0;
};

struct KernelRow {
  std::string name, kernel_class;
  size_t count = 0;
  double total_us = 0;
};

struct ClassRow {
  std::string name;
  size_t count = 0;
  double total_us = 0, share = 0;  // share of summed device kernel time
};

struct DistStats {
  size_t count = 0;
  double mean_us = 0, median_us = 0, p95_us = 0, max_us = 0;
};

struct SkippedRule {  // an advisor rule not run on a trace, and why (rule_needs.h)
  std::string rule, reason;
};

struct Summary {
  std::string file;
  TraceFormat format = TraceFormat::kineto;
  int64_t primary_device = 0;
  std::vector<StepStats> steps;
  StepStats overall;
  std::map<int64_t, Breakdown> devices;  // overall breakdown per device
  std::vector<ClassRow> classes;
  std::vector<OpRow> top_ops_self, top_ops_total;
  std::vector<OpRow> ops;  // all op types (for compare)
  std::vector<KernelRow> top_kernels;
  size_t kernel_count = 0;
  double kernel_median_us = 0, short_kernel_share = 0;  // share of kernels < 10 µs
  DistStats launch_delay;
  std::optional<NpuExtras> npu;  // its collectives moved to `collectives`
  std::vector<CollectiveCall> collectives;  // communication.json's, else the communication kernels'
  size_t events = 0;
  uint64_t input_bytes = 0;
  size_t missing_fields = 0, negative_durations = 0, unknown_categories = 0;
  std::vector<Finding> findings;
  std::vector<SkippedRule> skipped_rules;  // in advisors.toml order
  RankIdentity rank;  // job and rank the profiler recorded (decides whether inputs form a cluster)
};

struct SummaryOptions {
  size_t top = 10;
  unsigned threads = 0;  // worker threads for one trace (0: all cores); results do not depend on it
};


DistStats dist_stats(std::vector<double> values_us);
// The same for integer nanoseconds (exact sums; order statistics by selection, not a full sort).
DistStats dist_stats_ns(std::vector<int64_t> values_ns);
double median_us(std::vector<int64_t> values_ns);

}  // namespace banjia::trace
