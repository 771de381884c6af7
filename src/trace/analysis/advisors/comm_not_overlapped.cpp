// comm-not-overlapped: a step in which communication that no computation hides takes a large share
// of the wall time.
#include <fmt/format.h>

#include "trace/analysis/advisors/advisor.h"

namespace banjia::trace::advisors {

void comm_not_overlapped(const SummaryContext&, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  std::vector<StepHit> hits;
  for (const auto& st : s.steps) {
    const Breakdown& b = st.breakdown;
    if (b.wall_us > 0 && b.comm_us / b.wall_us >= r.param("min_share"))
      hits.push_back({"", st.name,
                      fmt::format("{}: communication not overlapped {:.1f} us of {:.1f} us ({:.1f}%)", st.name, b.comm_us,
                                  b.wall_us, 100 * b.comm_us / b.wall_us),
                      b.comm_us});
  }
  merge_step_hits(r, s, hits, out);
}

}  // namespace banjia::trace::advisors
