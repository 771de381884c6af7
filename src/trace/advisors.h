// Advisor rules (data/trace/advisors.toml): the tuning article's three patterns (small-gemm-batching,
// conv-in-loop, host-device-sync) plus host-bound, excessive-sync, aicpu-fallback, recompilation and
// comm-not-overlapped. Each finding carries evidence and an upper-bound saving estimate; a rule
// that does not fire adds nothing.
#pragma once
#include "trace/summary.h"
#include "trace/summary_context.h"

namespace banjia::trace {

void run_advisors(SummaryContext& ctx, Summary& s);

}  // namespace banjia::trace
