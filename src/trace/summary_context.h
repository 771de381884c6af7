// Shared state of one summarize() run: step windows, device ids, which step each event belongs to.
// Internal to src/trace (summary.cpp, summary_ops.cpp, advisors.cpp).
#pragma once
#include <unordered_map>
#include <vector>

#include "trace/summary.h"
#include "trace/trace_rules.h"

namespace banjia::trace {

// Group an event's device time falls in for the breakdown.
enum class Group : uint8_t { none, compute, comm, memory };

struct SummaryContext {
  const TraceData& t;
  const TraceRules& rules;
  std::vector<size_t> step_events;      // indices of ProfilerStep#N events, by start time
  std::vector<int32_t> step;            // per event: step index or -1
  std::vector<int64_t> launch_ts;       // per event: host launch time (device events), else kNone
  std::vector<int8_t> class_of_name;    // per name id: kernel class index, -1 unknown yet
  std::vector<uint8_t> name_flags;      // per name id: bit0 sync, bit1 cast, bit2 compile, bit7 computed

  SummaryContext(const TraceData& trace, const TraceRules& r);
  int64_t device_of(int64_t pid) const;
  int class_index(size_t i);           // index into kernel_class_names()
  Group group(size_t i);
  int flags(size_t i);
  int32_t step_at(int64_t ts) const;   // last step starting at or before ts (within the last step's end)

 private:
  std::unordered_map<int64_t, int64_t> device_by_pid_;
};

}  // namespace banjia::trace
