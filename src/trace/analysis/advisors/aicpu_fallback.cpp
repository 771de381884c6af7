// aicpu-fallback: operators that ran on the AI CPU for at least min_task_us (counted by the readers
// into NpuExtras, from kernel_details.csv or the trace's task types).
#include <fmt/format.h>

#include "trace/analysis/advisors/advisor.h"

namespace banjia::trace::advisors {

void aicpu_fallback(const SummaryContext&, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  if (!s.npu || s.npu->ai_cpu_slow_tasks == 0) return;
  out.push_back(make_finding(r, s, "",
                             fmt::format("{} AI_CPU tasks ({} of them >= {:.0f} us), {:.1f} us in total", s.npu->ai_cpu_tasks,
                                         s.npu->ai_cpu_slow_tasks, r.param("min_task_us"), s.npu->ai_cpu_us),
                             s.npu->ai_cpu_us));
}

}  // namespace banjia::trace::advisors
