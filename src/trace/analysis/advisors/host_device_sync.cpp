// host-device-sync: a step with many small host<->device copies and many sync points, which together
// keep the host waiting on the device.
#include <fmt/format.h>

#include "trace/analysis/advisors/advisor.h"
#include "trace/model/trace_model.h"

namespace banjia::trace::advisors {

void host_device_sync(const SummaryContext& ctx, const Summary& s, const AdvisorRule& r, std::vector<Finding>& out) {
  const TraceData& t = ctx.t;
  size_t n = s.steps.size() + 1;  // last slot: events outside any step
  std::vector<size_t> small(n), syncs(n);
  std::vector<double> cost(n);
  auto slot = [&](int32_t st) { return st >= 0 ? static_cast<size_t>(st) : n - 1; };
  for (size_t i = 0; i < t.size(); ++i) {
    Kind k = t.kind[i];
    if (k == Kind::memcpy) {
      std::string_view nm = t.name_of(i);
      bool hd = nm.find("HtoD") != std::string_view::npos || nm.find("DtoH") != std::string_view::npos;
      if (hd && t.bytes[i] != kNone && t.bytes[i] <= r.param("max_transfer_bytes")) {
        ++small[slot(ctx.step[i])];
        cost[slot(ctx.step[i])] += t.dur[i] / kNsPerUs;
      }
    } else if ((k == Kind::runtime || k == Kind::host_op) && (ctx.flags(i) & kSync)) {
      size_t sl = slot(ctx.step_at(t.ts[i]));
      ++syncs[sl];
      cost[sl] += t.dur[i] / kNsPerUs;
    }
  }
  std::vector<StepHit> hits;
  for (size_t k = 0; k < n; ++k) {
    if (small[k] < r.param("min_transfers") || syncs[k] < r.param("min_syncs")) continue;
    std::string name = k + 1 < n ? s.steps[k].name : "outside steps";
    std::string ev = fmt::format("{}: {} small (<= {:.0f} B) H2D/D2H copies, {} sync points; blocking + copy time {:.1f} us",
                                 name, small[k], r.param("max_transfer_bytes"), syncs[k], cost[k]);
    hits.push_back({"small transfers and syncs", name, ev, cost[k]});
  }
  merge_step_hits(r, s, hits, out);
}

}  // namespace banjia::trace::advisors
