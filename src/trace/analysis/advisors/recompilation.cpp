// recompilation: CANN compiled operators during the run (aclopCompileAndExecute events).
#include <fmt/format.h>

#include "trace/analysis/advisors/advisor.h"

namespace banjia::trace::advisors {

void recompilation(const SummaryContext&, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  if (s.overall.compile_events >= r.param("min_compiles"))
    out.push_back(make_finding(r, s, "", fmt::format("{} aclopCompileAndExecute events", s.overall.compile_events), 0));
}

}  // namespace banjia::trace::advisors
