// host-bound: a step whose device is mostly idle while its kernels are short: the host cannot launch
// work fast enough.
#include <fmt/format.h>

#include "trace/analysis/advisors/advisor.h"

namespace banjia::trace::advisors {

void host_bound(const SummaryContext&, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  std::vector<StepHit> hits;
  for (const auto& st : s.steps) {
    const Breakdown& b = st.breakdown;
    if (b.wall_us > 0 && st.kernels >= r.param("min_kernels") && b.busy_us() / b.wall_us < r.param("max_busy_ratio") &&
        st.kernel_median_us < r.param("max_median_kernel_us"))
      hits.push_back({"", st.name,
                      fmt::format("{}: device busy {:.1f} of {:.1f} us ({:.1f}%), {} kernels, median {:.2f} us", st.name,
                                  b.busy_us(), b.wall_us, 100 * b.busy_us() / b.wall_us, st.kernels, st.kernel_median_us),
                      b.idle_us});
  }
  merge_step_hits(r, s, hits, out);
}

}  // namespace banjia::trace::advisors
