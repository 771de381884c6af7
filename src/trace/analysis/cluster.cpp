#include "trace/analysis/cluster.h"

#include <algorithm>
#include <fmt/format.h>

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

void write_cluster_json(JsonWriter& w, const ClusterView& c) {
  w.begin_object();
  w.key("ranks").begin_array();
  for (auto& r : c.ranks)
    w.begin_object().field("file", r.file).field("rank", r.rank).field("step_us", r.step_us).field("compute_us", r.compute_us)
        .field("comm_us", r.comm_us).field("memory_us", r.memory_us).field("idle_us", r.idle_us).end_object();
  w.end_array();
  w.key("slow_rank_metrics").begin_array();
  for (auto& m : c.metrics)
    w.begin_object().field("metric", m.metric).field("gap_ratio", m.gap_ratio)
        .field("slowest_rank", static_cast<uint64_t>(m.slowest)).field("flagged", m.flagged).end_object();
  w.end_array();
  w.field("slow_rank", c.slow_rank).field("threshold", kSlowRankRatio);
  w.end_object();
}

std::string cluster_text(const ClusterView& c) {
  std::string o = "cluster (mean per step, ms):\n";
  o += fmt::format("  {:>4} {:>10} {:>10} {:>10} {:>10} {:>10}  {}\n", "rank", "step", "compute", "comm", "memory", "idle", "file");
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    auto& r = c.ranks[i];
    o += fmt::format("  {:>4} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}  {}\n",
                     r.rank ? *r.rank : static_cast<int64_t>(i), r.step_us / 1000,
                     r.compute_us / 1000, r.comm_us / 1000, r.memory_us / 1000, r.idle_us / 1000, r.file);
  }
  for (auto& m : c.metrics)
    o += fmt::format("  {}: (max-min)/mean = {:.1f}%{}\n", m.metric, 100 * m.gap_ratio,
                     m.flagged ? fmt::format(" > 5%: slow rank {}", c.ranks[m.slowest].rank
                                                                  ? *c.ranks[m.slowest].rank
                                                                  : static_cast<int64_t>(m.slowest))
                               : std::string());
  return o;
}

}  // namespace banjia::trace
