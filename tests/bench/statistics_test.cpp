// Statistics of `bench compare`: numpy-linear quantiles, Tukey outliers, and the bootstrap interval
// (reproducible, and covering a known ratio about 95 % of the time).
#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "bench/statistics.h"

namespace banjia::bench {
namespace {

TEST(BenchStatistics, QuantileFollowsNumpyLinearDefinition) {
  // h = (n-1) q; value = x[floor h] + frac(h) * (x[floor h + 1] - x[floor h]), worked by hand:
  std::vector<double> x{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.5), 2.5);    // h = 1.5
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.95), 3.85);  // h = 2.85
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.25), 1.75);  // h = 0.75
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile_sorted({7}, 0.95), 7.0);
}

TEST(BenchStatistics, SummaryMomentsAndOutliers) {
  std::vector<double> v{10, 11, 12, 13, 14, 100};  // 100 is far beyond q3 + 1.5 IQR
  SampleSummary s = summarize_sample(v, 1.5);
  EXPECT_EQ(s.n, 6u);
  EXPECT_DOUBLE_EQ(s.median, 12.5);
  EXPECT_DOUBLE_EQ(s.mean, 160.0 / 6);
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  EXPECT_NEAR(s.stdev, std::sqrt(ss / 5), 1e-12);
  EXPECT_NEAR(s.cv, s.stdev / s.mean, 1e-12);
  EXPECT_DOUBLE_EQ(s.q1, 11.25);  // h = 1.25
  EXPECT_DOUBLE_EQ(s.q3, 13.75);  // h = 3.75
  EXPECT_EQ(s.outliers_high, 1u);
  EXPECT_EQ(s.outliers_low, 0u);
  EXPECT_DOUBLE_EQ(s.fence_high, 13.75 + 1.5 * 2.5);
}

TEST(BenchStatistics, SingleValueHasZeroSpread) {
  SampleSummary s = summarize_sample({5.0}, 1.5);
  EXPECT_EQ(s.stdev, 0.0);
  EXPECT_EQ(s.cv, 0.0);
  EXPECT_EQ(s.p95, 5.0);
}

TEST(BenchStatistics, BootstrapIsReproducibleForAFixedSeed) {
  std::vector<double> a{10, 11, 12, 10.5, 11.5, 10.2, 12.2, 11.1, 10.9, 11.7};
  std::vector<double> b{8, 8.5, 9, 8.2, 8.8, 9.1, 8.4, 8.6, 8.9, 8.3};
  BootstrapSpec spec{2000, 42, 0.95};
  Interval i1 = bootstrap_median_ratio({&b}, {&a}, spec);
  Interval i2 = bootstrap_median_ratio({&b}, {&a}, spec);
  EXPECT_EQ(i1.low, i2.low);
  EXPECT_EQ(i1.high, i2.high);
  // medians by hand: b sorted 8 8.2 8.3 8.4 8.5 8.6 8.8 8.9 9 9.1 -> 8.55; a sorted 10 10.2 10.5 10.9 11 11.1 ... -> 11.05
  EXPECT_NEAR(i1.estimate, 8.55 / 11.05, 1e-12);
  spec.seed = 43;
  Interval i3 = bootstrap_median_ratio({&b}, {&a}, spec);
  EXPECT_TRUE(i3.low != i1.low || i3.high != i1.high);
  EXPECT_LE(i1.low, i1.estimate);
  EXPECT_GE(i1.high, i1.estimate);
}

TEST(BenchStatistics, BootstrapProductOfMedians) {
  std::vector<double> p{2, 2, 2}, t{3, 3, 3}, q{1, 1, 1}, u{4, 4, 4};
  Interval i = bootstrap_median_ratio({&p, &t}, {&q, &u}, {200, 1, 0.95});
  EXPECT_DOUBLE_EQ(i.estimate, 6.0 / 4.0);
  EXPECT_DOUBLE_EQ(i.low, 1.5);  // constant samples: every resample gives the same ratio
  EXPECT_DOUBLE_EQ(i.high, 1.5);
}

// Coverage on synthetic data with a known ratio: log-normal step times (right-skewed like real ones),
// the other run's true median is exactly 0.8 x the baseline's. Over 200 independent trials the 95 %
// interval must contain 0.8 in about 95 % of them; with 200 trials the binomial standard error is
// 1.5 points, and the percentile bootstrap of a median is known to under-cover slightly for n = 30.
TEST(BenchStatistics, BootstrapCoversTheTrueRatio) {
  const double true_ratio = 0.8, base_median = 20.0, sigma = 0.08;
  const int trials = 200, n = 30;
  std::mt19937_64 gen(7);
  std::normal_distribution<double> z(0.0, 1.0);
  int covered = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> base, other;
    for (int i = 0; i < n; ++i) base.push_back(base_median * std::exp(sigma * z(gen)));
    for (int i = 0; i < n; ++i) other.push_back(base_median * true_ratio * std::exp(sigma * z(gen)));
    Interval ci = bootstrap_median_ratio({&other}, {&base}, {1000, static_cast<uint64_t>(1000 + t), 0.95});
    if (ci.low <= true_ratio && true_ratio <= ci.high) ++covered;
  }
  const double coverage = static_cast<double>(covered) / trials;
  std::printf("bootstrap coverage of the true ratio: %d/%d\n", covered, trials);
  EXPECT_GE(coverage, 0.89) << "coverage " << coverage;
  EXPECT_LE(coverage, 0.995) << "coverage " << coverage;
}

}  // namespace
}  // namespace banjia::bench
