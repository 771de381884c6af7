#include "trace/analysis/intervals.h"

#include <gtest/gtest.h>

using banjia::trace::Interval;
using banjia::trace::union_length;

TEST(Intervals, OverlapsCountOnce) {
  std::vector<Interval> v{{10, 20}, {15, 30}, {40, 50}, {0, 5}, {45, 47}};
  EXPECT_EQ(union_length(v), 5 + 20 + 10);
}

TEST(Intervals, TouchingAndEmpty) {
  std::vector<Interval> v{{0, 10}, {10, 20}, {30, 30}, {25, 24}};
  EXPECT_EQ(union_length(v), 20);
  std::vector<Interval> none;
  EXPECT_EQ(union_length(none), 0);
}
