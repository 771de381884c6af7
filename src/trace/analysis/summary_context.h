// Shared state of one summarize() run: step windows, device ids, which step each event belongs to,
// and per-name facts (kernel class, sync/cast/compile/step markers) decided once per distinct name.
// Everything is computed in the constructor, so the analyses may read it from several threads.
// Internal to src/trace/analysis (summarize.cpp, summarize_ops.cpp, the advisors/ units).
#pragma once
#include <unordered_map>
#include <vector>

#include "trace/analysis/rule_needs.h"
#include "trace/analysis/summary.h"
#include "trace/model/trace_rules.h"

namespace banjia::trace {

// Group an event's device time falls in for the breakdown.
enum class Group : uint8_t { none, compute, comm, memory };

// Bits of SummaryContext::flags().
enum NameFlag : int { kSync = 1, kCast = 2, kCompile = 4, kStep = 8, kHtoD = 16, kDtoH = 32, kHostCollective = 64 };

// Events are processed in blocks of this many; partial results are combined in block order (or are
// integers), so results do not depend on the number of threads.
constexpr size_t kEventBlock = size_t{1} << 16;

struct SummaryContext {
  const TraceData& t;
  const TraceRules& rules;
  unsigned threads;                     // worker threads for the analyses (>= 1)
  std::vector<size_t> step_events;      // indices of ProfilerStep#N events, by start time
  std::vector<int32_t> step;            // per event: step index or -1
  std::vector<int64_t> launch_ts;       // per event: host launch time (device events), else kNone
  TraceFacts facts;                     // what the trace holds, for the advisors' needs

  SummaryContext(const TraceData& trace, const TraceRules& r, unsigned threads = 1);
  int64_t device_of(int64_t pid) const;
  int class_index(size_t i) const;     // index into kernel_class_names()
  int class_of_name(uint32_t name) const { return class_of_name_[name]; }  // as if a kernel
  Group group(size_t i) const;
  int flags(size_t i) const { return name_flags_[t.name[i]]; }  // NameFlag bits of the event's name
  int32_t step_at(int64_t ts) const;   // last step starting at or before ts (within the last step's end)
  size_t blocks() const { return (t.size() + kEventBlock - 1) / kEventBlock; }
  // Calls fn(worker, item) for every item in [0, n) on `threads` workers; `worker` < threads
  // indexes per-worker scratch state.
  template <class Fn>
  void for_items(size_t n, Fn&& fn) const;
  // Calls fn(worker, from, to) for every block of events, as for_items.
  template <class Fn>
  void for_blocks(Fn&& fn) const {
    for_items(blocks(), [&](size_t w, size_t b) { fn(w, b * kEventBlock, std::min(t.size(), (b + 1) * kEventBlock)); });
  }

 private:
  std::unordered_map<int64_t, int64_t> device_by_pid_;
  std::vector<int8_t> class_of_name_;   // per string id: kernel class index
  std::vector<uint8_t> name_flags_;     // per string id: NameFlag bits
  std::vector<int64_t> step_start_;     // ts of step_events, for binary search
  int memory_class_ = 0, comm_class_ = 0;
};

}  // namespace banjia::trace

#include <atomic>

#include "common/thread_pool.h"

namespace banjia::trace {

template <class Fn>
void SummaryContext::for_items(size_t n, Fn&& fn) const {
  std::atomic<size_t> next{0};
  parallel_for(threads, threads, [&](size_t worker) {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(worker, i);
  });
}

}  // namespace banjia::trace
