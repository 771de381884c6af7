#include "trace/analysis/cluster.h"

#include <gtest/gtest.h>

using namespace banjia::trace;

namespace {
Summary rank(double compute, double comm, double idle) {
  Summary s;
  StepStats st;
  st.breakdown.compute_us = compute;
  st.breakdown.comm_us = comm;
  st.breakdown.idle_us = idle;
  st.breakdown.wall_us = compute + comm + idle;
  s.steps.push_back(st);
  return s;
}
}  // namespace

TEST(Cluster, SlowRankWhenGapOverFivePercentOfMean) {
  // compute: (110-100)/105 = 9.5% > 5%; comm: (51-50)/50.5 = 2% <= 5%
  ClusterView c = cluster_view({rank(100, 50, 10), rank(110, 51, 10)});
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_TRUE(c.slow_rank);
  for (auto& m : c.metrics) {
    if (m.metric == "compute_us") {
      EXPECT_NEAR(m.gap_ratio, 10.0 / 105.0, 1e-12);
      EXPECT_TRUE(m.flagged);
      EXPECT_EQ(m.slowest, 1u);
    }
    if (m.metric == "comm_us") {
      EXPECT_FALSE(m.flagged);
    }
  }
}

TEST(Cluster, BalancedRanksAreNotFlagged) {
  ClusterView c = cluster_view({rank(100, 50, 10), rank(101, 50, 10), rank(100.5, 50.2, 10.1)});
  EXPECT_FALSE(c.slow_rank);
}
