#include "trace/analysis/cluster.h"

#include <algorithm>
#include <numeric>

namespace banjia::trace {

namespace {

double own_us(const RankRow& r) { return r.compute_us + r.memory_us; }
double wait_us(const RankRow& r) { return r.comm_us + r.idle_us; }

void attribute_waiting(ClusterView& c) {
  const size_t n = c.ranks.size();
  std::vector<double> own;
  double mean_step = 0;
  for (const RankRow& r : c.ranks) {
    own.push_back(own_us(r));
    mean_step += r.step_us / static_cast<double>(n);
  }
  const auto [lo, hi] = std::minmax_element(own.begin(), own.end());
  const double mean_own = std::accumulate(own.begin(), own.end(), 0.0) / static_cast<double>(n);
  if (mean_own > 0 && (*hi - *lo) / mean_own > kSlowRankRatio) {
    std::vector<double> sorted = own;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n / 2), sorted.end());
    c.culprit = Culprit{static_cast<size_t>(hi - own.begin()), *hi, sorted[n / 2], (*hi - *lo) / mean_own};
  }
  double least = wait_us(c.ranks[0]);
  for (const RankRow& r : c.ranks) least = std::min(least, wait_us(r));
  for (size_t i = 0; i < n; ++i) {
    const double excess = wait_us(c.ranks[i]) - least;
    if ((c.culprit && c.culprit->index == i) || mean_step <= 0 || excess <= kSlowRankRatio * mean_step) continue;
    c.waiting.push_back({i, wait_us(c.ranks[i]), excess});
  }
  std::stable_sort(c.waiting.begin(), c.waiting.end(), [](const auto& x, const auto& y) { return x.excess_us > y.excess_us; });
}

}  // namespace

int64_t rank_of(const ClusterView& c, size_t i) { return c.ranks[i].rank ? *c.ranks[i].rank : static_cast<int64_t>(i); }

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
    if (s.npu && !s.npu->step_trace.empty()) {
      double stage = 0, bubble = 0;
      for (const NpuStepTrace& st : s.npu->step_trace) stage += st.stage, bubble += st.bubble;
      const double steps = static_cast<double>(s.npu->step_trace.size());
      r.stage_us = stage / steps;
      r.bubble_us = bubble / steps;
    }
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
  attribute_waiting(c);
  double mean_step = 0;
  for (const RankRow& r : c.ranks) mean_step += r.step_us / static_cast<double>(c.ranks.size());
  c.communication = communication_view(all, mean_step);
  return c;
}

}  // namespace banjia::trace
