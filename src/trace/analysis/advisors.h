// Advisor rules (data/trace/advisors.toml): the tuning article's three patterns (small-gemm-batching,
// conv-in-loop, host-device-sync) plus host-bound, excessive-sync, aicpu-fallback, recompilation and
// comm-not-overlapped. Each finding carries evidence and an upper-bound saving estimate; a rule
// that does not fire adds nothing.
#pragma once
#include "trace/analysis/summary.h"
#include "trace/analysis/summary_context.h"

namespace banjia::trace {

// The advisors that scan the whole trace (the article's three patterns, in this order). summarize()
// runs them side by side with its tables and adds their findings first.
constexpr size_t kScanAdvisors = 3;
void run_scan_advisor(size_t k, const SummaryContext& ctx, const Summary& s, std::vector<Finding>& out);

// The rules on the finished summary (per-step breakdown, NPU extras): summarize() runs them last.
void run_advisors(SummaryContext& ctx, Summary& s);

}  // namespace banjia::trace
