#include "trace/analysis/communication.h"

#include <gtest/gtest.h>

using namespace banjia::trace;

namespace {

constexpr int64_t kUsToNs = 1000;

// A rank of a job whose collectives all end at `end_us[k]` on a common clock: this rank reaches
// collective k `late_us` after the others' `ready_us[k]`, and its clock reads `offset_us` ahead.
Summary rank_with_collectives(const std::vector<double>& ready_us, const std::vector<double>& end_us, double late_us,
                              double offset_us, size_t steps) {
  Summary s;
  s.steps.resize(steps);
  for (size_t k = 0; k < ready_us.size(); ++k) {
    const double start = ready_us[k] + late_us;
    s.collectives.push_back({"allreduce#" + std::to_string(k), static_cast<int64_t>((start + offset_us) * kUsToNs),
                             static_cast<int64_t>((end_us[k] - start) * kUsToNs)});
  }
  return s;
}

}  // namespace

TEST(CollectiveArrivals, ClockOffsetsFromCollectiveEndsNameTheRankThatArrivesLast) {
  // Ten collectives, one per step of 1000 us; rank 2 arrives 100 us after the others at each. The
  // clocks of ranks 1 and 3 read 5 ms and 700 ms ahead: by raw start times rank 3 would be last.
  std::vector<double> ready, end;
  for (int k = 0; k < 10; ++k) {
    ready.push_back(1000.0 * k + 400);
    end.push_back(1000.0 * k + 900);
  }
  const std::vector<double> late = {0, 0, 100, 0}, offset = {0, 5000, -3000, 700000};
  std::vector<Summary> ranks;
  for (size_t r = 0; r < 4; ++r) ranks.push_back(rank_with_collectives(ready, end, late[r], offset[r], 10));
  const ArrivalView a = communication_view(ranks, 1000).arrivals;
  ASSERT_EQ(a.collectives, 10u);
  ASSERT_EQ(a.ranks.size(), 4u);
  for (size_t r = 0; r < 4; ++r) EXPECT_NEAR(a.ranks[r].clock_offset_us, offset[r], 1e-6) << r;
  EXPECT_EQ(a.ranks[2].last, 10u);
  EXPECT_NEAR(a.ranks[2].held_us, 100.0, 1e-6);  // 10 x 100 us over 10 steps
  EXPECT_EQ(a.ranks[3].last, 0u);
  ASSERT_TRUE(a.latest.has_value());
  EXPECT_EQ(*a.latest, 2u);
  // Held 100 us per step of 1000 is over 5 %; of a 2.5 ms step, it is not.
  EXPECT_FALSE(communication_view(ranks, 2500).arrivals.latest.has_value());
}

TEST(CollectiveArrivals, OnlyOperationsEveryRankRecordedOnceAreShared) {
  std::vector<Summary> ranks(3);
  for (auto& s : ranks) s.collectives = {{"a", 0, 10}, {"b", 100, 10}};
  ranks[1].collectives.push_back({"c", 200, 10});   // not on the other ranks
  ranks[2].collectives.push_back({"a", 300, 10});   // "a" twice on rank 2: ambiguous
  EXPECT_EQ(communication_view(ranks, 1000).arrivals.collectives, 1u);
  ranks[0].collectives.clear();
  EXPECT_TRUE(communication_view(ranks, 1000).arrivals.ranks.empty());
}

TEST(TransportBandwidth, TheSlowLinkRuleFlagsTheRankWithTheLeastBandwidth) {
  std::vector<Summary> ranks(3);
  const double sdma_mb[] = {100, 100, 100}, sdma_ms[] = {5, 5, 6};  // 20, 20, 16.67 GB/s
  for (size_t r = 0; r < 3; ++r) {
    ranks[r].npu.emplace();
    ranks[r].npu->transport_traffic["SDMA"] = {sdma_mb[r], sdma_ms[r]};
    ranks[r].npu->transport_traffic["RDMA"] = {0, 0};
  }
  const auto view = communication_view(ranks, 1000);
  ASSERT_EQ(view.transports.size(), 1u);  // RDMA carried nothing
  const TransportBandwidth& b = view.transports[0];
  EXPECT_EQ(b.transport, "SDMA");
  const double mean = (20 + 20 + 100.0 / 6) / 3;
  EXPECT_NEAR(b.gap_ratio, (20 - 100.0 / 6) / mean, 1e-12);
  EXPECT_TRUE(b.flagged);
  EXPECT_EQ(b.slowest, 2u);
}

TEST(LinkTraffic, GroupRanksAreMappedToTheJobsAndTheSlowestLinkOfATransportNamed) {
  // Ranks 0, 4 and 6 of a job. Group "world" holds all three (its ranks 0, 1, 2 are the job's 0, 4,
  // 6); group "pair" holds 4 and 6 (its 0 and 1). Rank 0's link to its group's rank 3 names a
  // rank that was not profiled.
  std::vector<Summary> ranks(3);
  const int64_t ids[] = {0, 4, 6};
  for (size_t i = 0; i < 3; ++i) {
    ranks[i].rank.rank = ids[i];
    ranks[i].npu.emplace();
  }
  ranks[0].npu->links = {{"world", "allreduce", 0, 0, "LOCAL", {50, 0.1}}, {"world", "allreduce", 0, 1, "HCCS", {40, 2}},
                         {"world", "allreduce", 0, 3, "HCCS", {40, 2}}};
  ranks[1].npu->links = {{"world", "allreduce", 1, 2, "HCCS", {40, 4}}, {"pair", "send", 0, 1, "HCCS", {40, 4}}};
  ranks[2].npu->links = {{"world", "allreduce", 2, 0, "HCCS", {60, 3}}, {"pair", "send", 1, 0, "HCCS", {30, 3}}};
  const auto view = communication_view(ranks, 1000);
  EXPECT_EQ(view.unmapped_links, 1u);
  struct Expected {
    int64_t src, dst;
    const char* transport;
    double size_mb, time_ms;
  };
  const Expected expected[] = {{0, 0, "LOCAL", 50, 0.1}, {0, 4, "HCCS", 40, 2}, {4, 6, "HCCS", 80, 8},  // both groups
                               {6, 0, "HCCS", 60, 3}, {6, 4, "HCCS", 30, 3}};
  // 4 -> 6 per kind of operation: the all-reduce of "world" and the send of "pair".
  ASSERT_EQ(view.links.size(), std::size(expected));
  const auto& by_collective = view.links[2].by_collective;
  ASSERT_EQ(by_collective.size(), 2u);
  EXPECT_DOUBLE_EQ(by_collective.at("allreduce").time_ms, 4);
  EXPECT_DOUBLE_EQ(by_collective.at("send").size_mb, 40);
  ASSERT_EQ(view.links.size(), std::size(expected));
  for (size_t i = 0; i < view.links.size(); ++i) {
    EXPECT_EQ(view.links[i].src, expected[i].src) << i;
    EXPECT_EQ(view.links[i].dst, expected[i].dst) << i;
    EXPECT_EQ(view.links[i].transport, expected[i].transport) << i;
    EXPECT_DOUBLE_EQ(view.links[i].traffic.size_mb, expected[i].size_mb) << i;
    EXPECT_DOUBLE_EQ(view.links[i].traffic.time_ms, expected[i].time_ms) << i;
  }
  // HCCS: 20, 10, 20, 10 GB/s. LOCAL is a rank to itself: not a link between ranks.
  ASSERT_EQ(view.slow_links.size(), 1u);
  const SlowLink& s = view.slow_links[0];
  EXPECT_EQ(s.transport, "HCCS");
  EXPECT_EQ(s.link, 2u);  // 4 -> 6, the first of the two slowest
  EXPECT_NEAR(s.mean_gbps, 15, 1e-12);
  EXPECT_NEAR(s.gap_ratio, 10.0 / 15, 1e-12);
  EXPECT_TRUE(s.flagged);
}
