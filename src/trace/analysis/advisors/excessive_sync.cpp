// excessive-sync: a step with many host-device synchronisation points.
#include <fmt/format.h>

#include "trace/analysis/advisors/advisor.h"

namespace banjia::trace::advisors {

void excessive_sync(const SummaryContext&, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  std::vector<StepHit> hits;
  for (const auto& st : s.steps)
    if (st.sync_points >= r.param("min_syncs_per_step"))
      hits.push_back({"", st.name, fmt::format("{}: {} sync points", st.name, st.sync_points), 0});
  merge_step_hits(r, s, hits, out);
}

}  // namespace banjia::trace::advisors
