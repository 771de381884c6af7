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

TEST(Cluster, TheRankWithTheMostOwnWorkIsTheCulpritAndTheOthersWaitForIt) {
  // Eight ranks of one synchronous job (step 160 ms): rank 3 computes 130 ms instead of 100, so the
  // others spend those 30 ms waiting, in communication, or for rank 6 idle on the host.
  std::vector<Summary> ranks;
  for (int r = 0; r < 8; ++r) ranks.push_back(r == 3 ? rank(130, 20, 10) : r == 6 ? rank(100, 20, 40) : rank(100, 50, 10));
  ClusterView c = cluster_view(ranks);
  ASSERT_TRUE(c.culprit);
  EXPECT_EQ(c.culprit->index, 3u);
  EXPECT_DOUBLE_EQ(c.culprit->own_us, 130);
  EXPECT_DOUBLE_EQ(c.culprit->median_own_us, 100);
  EXPECT_NEAR(c.culprit->gap_ratio, 30.0 / (830.0 / 8), 1e-12);
  // idle flags rank 6, the waiting one, as msprof-analyze's rule does; it is a waiting rank here
  for (auto& m : c.metrics) {
    if (m.metric == "idle_us") {
      EXPECT_TRUE(m.flagged);
      EXPECT_EQ(m.slowest, 6u);
    }
  }
  ASSERT_EQ(c.waiting.size(), 7u);
  for (const WaitingRank& w : c.waiting) {
    EXPECT_NE(w.index, 3u);
    EXPECT_DOUBLE_EQ(w.excess_us, 30);  // 60 against the culprit's 30
  }
}

TEST(Cluster, WaitingWithoutAnyRankWorkingLongerNamesNoCulprit) {
  // Own work balanced; rank 1 idles 20 ms longer (its host, or a slow link): no culprit in compute.
  ClusterView c = cluster_view({rank(100, 50, 10), rank(100, 50, 30), rank(101, 50, 10)});
  EXPECT_FALSE(c.culprit);
  ASSERT_EQ(c.waiting.size(), 1u);
  EXPECT_EQ(c.waiting[0].index, 1u);
  EXPECT_DOUBLE_EQ(c.waiting[0].excess_us, 20);
}
