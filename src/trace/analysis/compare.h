// `banjia trace compare`: baseline vs target (GPU vs NPU, before vs after). Op types are joined by
// name through a hash map (O(N+M), no sequence alignment); `--map` renames target ops first.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "trace/analysis/summary.h"

namespace banjia::trace {

// Every count and time is a mean per step of its side (the side's total / its number of steps), so a
// run profiled over two steps compares fairly with one profiled over one.
struct CompareRow {
  std::string name;
  double base_count = 0, target_count = 0;
  double base_us = 0, target_us = 0;
  double delta_us() const { return target_us - base_us; }
  std::optional<double> ratio() const {
    return base_us > 0 ? std::optional<double>(target_us / base_us) : std::nullopt;
  }
  // Nothing in the baseline, something in the target: zero time against non-zero time, or (with no time
  // on either side) no calls against some.
  bool is_new() const { return base_us == 0 && (target_us > 0 || (base_count == 0 && target_count > 0)); }
};

struct Comparison {
  std::string baseline, target;
  size_t baseline_steps = 1, target_steps = 1;  // profiler steps (1 when a trace has no step markers)
  std::vector<CompareRow> metrics;  // step wall and breakdown, per step
  std::vector<CompareRow> classes;  // kernel classes, per step
  std::vector<CompareRow> ops;      // per op type, per step, largest regression first
};

Comparison compare_summaries(const Summary& base, const Summary& target,
                             const std::map<std::string, std::string>& target_to_base);

}  // namespace banjia::trace
