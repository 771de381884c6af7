// Per-rank reports as `trace cluster` reads them (trace/report/cluster_input_json): each input is
// one report's text; when it reads, its traces (twice, as two ranks of one job) go through the cluster
// view, so hostile collectives, traffic and breakdowns reach the arrival, bandwidth and link
// analyses. Properties: only InputError escapes; what is read is finite and within range
// (collectives within +-kMaxTimeNs, durations >= 0); every number the cluster view computes is
// finite, and its indices point into its ranks and links.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "fuzz_check.h"
#include "trace/analysis/cluster.h"
#include "trace/model/time_units.h"
#include "trace/report/cluster_input_json.h"

using namespace banjia;
using namespace banjia::trace;

namespace {
void check(const ClusterView& c) {
  const CommunicationView& m = c.communication;
  for (const RankArrivals& a : m.arrivals.ranks)
    FUZZ_CHECK(std::isfinite(a.clock_offset_us) && std::isfinite(a.held_us) && a.held_us >= 0, "arrivals are finite");
  FUZZ_CHECK(!m.arrivals.latest || *m.arrivals.latest < c.ranks.size(), "latest is a rank");
  for (const CollectiveKind& k : m.kinds)
    FUZZ_CHECK(k.calls > 0 && std::isfinite(k.time_us) && k.time_us >= 0 && std::isfinite(k.bandwidth_gbps()),
               "collective kinds are finite");
  for (const TransportBandwidth& b : m.transports)
    FUZZ_CHECK(std::isfinite(b.gap_ratio) && b.slowest < c.ranks.size(), "transport rule is finite");
  for (const JobLink& l : m.links)
    FUZZ_CHECK(std::isfinite(l.traffic.size_mb) && std::isfinite(l.traffic.time_ms), "link traffic finite");
  for (const SlowLink& s : m.slow_links)
    FUZZ_CHECK(s.link < m.links.size() && std::isfinite(s.gap_ratio) && std::isfinite(s.mean_gbps), "slow link");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<Summary> ranks;
  try {
    ranks = read_summary_report_json(std::string_view(reinterpret_cast<const char*>(data), size), "report.json");
  } catch (const InputError&) {
    return 0;
  }
  for (const Summary& s : ranks) {
    FUZZ_CHECK(std::isfinite(s.overall.breakdown.wall_us), "breakdown finite");
    for (const CollectiveCall& c : s.collectives)
      FUZZ_CHECK(c.start_ns >= -kMaxTimeNs && c.start_ns <= kMaxTimeNs && c.dur_ns >= 0 && c.dur_ns <= kMaxTimeNs,
                 "collectives within range");
  }
  std::vector<Summary> job = ranks;
  job.insert(job.end(), ranks.begin(), ranks.end());
  for (size_t i = 0; i < job.size(); ++i) job[i].rank.rank = static_cast<int64_t>(i);
  check(cluster_view(job));
  return 0;
}
