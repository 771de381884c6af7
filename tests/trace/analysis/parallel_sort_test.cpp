// parallel_sort, sort_nearly_sorted and group_by against std::sort / a plain loop.
#include "trace/analysis/parallel_sort.h"

#include <random>

#include <gtest/gtest.h>

using namespace banjia::trace;

TEST(ParallelSort, EqualsStdSortForAnyThreadCount) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> v(100000);
  for (auto& x : v) x = static_cast<int64_t>(rng() % 1000);
  auto expect = v;
  std::sort(expect.begin(), expect.end());
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    auto got = v;
    parallel_sort(got, std::less<int64_t>(), threads);
    EXPECT_EQ(got, expect) << threads;
  }
}

TEST(ParallelSort, NearlySortedAndShuffledInputs) {
  std::vector<int> v(50000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  std::swap(v[10], v[40000]);  // two out of place
  std::swap(v[0], v[1]);
  auto expect = v;
  std::sort(expect.begin(), expect.end());
  auto got = v;
  sort_nearly_sorted(got, std::less<int>());
  EXPECT_EQ(got, expect);
  std::mt19937 rng(3);
  std::shuffle(v.begin(), v.end(), rng);  // far from sorted: the fallback
  sort_nearly_sorted(v, std::less<int>());
  EXPECT_EQ(v, expect);
  std::vector<int> empty;
  sort_nearly_sorted(empty, std::less<int>());
  EXPECT_TRUE(empty.empty());
}

TEST(ParallelSort, GroupByKeepsOrderWithinGroups) {
  std::vector<std::vector<std::pair<int, int>>> parts = {{{2, 0}, {1, 1}, {2, 2}}, {}, {{1, 3}, {3, 4}, {1, 5}}};
  auto g = group_by(std::move(parts), [](const std::pair<int, int>& p) { return p.first; });
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0], (std::vector<std::pair<int, int>>{{1, 1}, {1, 3}, {1, 5}}));
  EXPECT_EQ(g[1], (std::vector<std::pair<int, int>>{{2, 0}, {2, 2}}));
  EXPECT_EQ(g[2], (std::vector<std::pair<int, int>>{{3, 4}}));
}

TEST(ParallelSort, RadixSortIsStableAndHandlesWideRanges) {
  std::mt19937_64 rng(11);
  for (int64_t spread : {int64_t{5}, int64_t{1} << 20, int64_t{1} << 40, INT64_MAX}) {
    std::vector<std::pair<int64_t, size_t>> v(20000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = {static_cast<int64_t>(rng() % static_cast<uint64_t>(spread)) - spread / 2, i};
    auto expect = v;
    std::sort(expect.begin(), expect.end());  // by key, then original position: what stable means
    radix_sort(v, [](const std::pair<int64_t, size_t>& p) { return p.first; });
    EXPECT_EQ(v, expect) << spread;
  }
  std::vector<std::pair<int64_t, size_t>> one = {{-3, 0}};
  radix_sort(one, [](const std::pair<int64_t, size_t>& p) { return p.first; });
  EXPECT_EQ(one.size(), 1u);
}
