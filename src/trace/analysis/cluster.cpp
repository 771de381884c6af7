#include "trace/analysis/cluster.h"

#include <algorithm>

namespace banjia::trace {

ClusterView cluster_view(const std::vector<Summary>& all) {
  ClusterView c;
  for (auto& s : all) {
    RankRow r;
    r.file = s.file;
    r.rank = s.rank.rank;
    std::vector<const Breakdown*> bs;
    for (auto& st : s.steps) bs.push_back(&st.breakdown);
    if (bs.empty()) bs.push_back(&s.overall.breakdown);
    for (auto* b : bs) {
      r.step_us += b->wall_us;
      r.compute_us += b->compute_us;
      r.comm_us += b->comm_us;
      r.memory_us += b->memory_us;
      r.idle_us += b->idle_us;
    }
    double n = static_cast<double>(bs.size());
    r.step_us /= n, r.compute_us /= n, r.comm_us /= n, r.memory_us /= n, r.idle_us /= n;
    c.ranks.push_back(r);
  }
  if (c.ranks.size() < 2) return c;
  for (auto [name, field] : {std::pair{"compute_us", &RankRow::compute_us}, std::pair{"comm_us", &RankRow::comm_us},
                             std::pair{"idle_us", &RankRow::idle_us}, std::pair{"step_us", &RankRow::step_us}}) {
    SlowMetric m;
    m.metric = name;
    double mn = c.ranks[0].*field, mx = mn, sum = 0;
    for (size_t i = 0; i < c.ranks.size(); ++i) {
      double v = c.ranks[i].*field;
      sum += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    for (size_t i = 0; i < c.ranks.size(); ++i)
      if (c.ranks[i].*field == mx) m.slowest = i;
    double mean = sum / static_cast<double>(c.ranks.size());
    m.gap_ratio = mean > 0 ? (mx - mn) / mean : 0;
    m.flagged = m.gap_ratio > kSlowRankRatio;
    c.slow_rank = c.slow_rank || m.flagged;
    c.metrics.push_back(m);
  }
  return c;
}

}  // namespace banjia::trace
