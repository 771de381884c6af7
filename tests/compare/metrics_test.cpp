// Metric definitions on small arrays whose expected values are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compare/analysis/metrics.h"
#include "compare/analysis/verdict.h"

namespace banjia::compare {
namespace {

NpyView view(const std::vector<double>& v, std::vector<int64_t> shape = {}, bool fortran = false) {
  NpyView out;
  out.dtype = DType::kF64;
  out.count = v.size();
  out.data = reinterpret_cast<const std::byte*>(v.data());
  out.shape = shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(v.size())} : shape;
  out.fortran_order = fortran;
  return out;
}

TEST(Metrics, HandComputedValues) {
  std::vector<double> a = {1, 2, 3, 0}, b = {1, 2, 4, 0};
  PairMetrics m = compute_metrics(view(a), view(b), Tolerance{0, 0.5});
  // dot = 1+4+12 = 17, |a| = sqrt(14), |b| = sqrt(21)
  EXPECT_NEAR(m.cosine, 17 / std::sqrt(14.0 * 21.0), 1e-15);
  EXPECT_DOUBLE_EQ(m.euc_dist, 1.0);
  EXPECT_DOUBLE_EQ(m.max_abs_err, 1.0);
  EXPECT_DOUBLE_EQ(m.max_rel_err, 0.25);  // |3-4|/4; the 0 vs 0 pair gets eps on both sides -> 0
  EXPECT_DOUBLE_EQ(m.rmse, 0.5);          // sqrt(1/4)
  EXPECT_DOUBLE_EQ(m.mean_abs_err, 0.25);
  EXPECT_DOUBLE_EQ(m.rel_l2_err, 1 / std::sqrt(21.0));
  EXPECT_DOUBLE_EQ(m.one_thousandth_ratio, 0.75);
  EXPECT_DOUBLE_EQ(m.five_thousandths_ratio, 0.75);
  EXPECT_EQ(m.allclose_mismatches, 1);  // |3-4| = 1 > 0.5
  EXPECT_DOUBLE_EQ(m.a.max, 3);
  EXPECT_DOUBLE_EQ(m.b.min, 0);
  EXPECT_DOUBLE_EQ(m.b.mean, 7.0 / 4);
}

TEST(Metrics, EpsilonRuleWhereReferenceIsZero) {
  std::vector<double> a = {1e-20}, b = {0};
  PairMetrics m = compute_metrics(view(a), view(b), Tolerance{});
  double eps = std::numeric_limits<double>::epsilon();
  EXPECT_DOUBLE_EQ(m.max_rel_err, std::fabs((1e-20 + eps) - eps) / eps);
  EXPECT_EQ(m.cosine_state, CosineState::kSingleElement);
}

TEST(Metrics, LongArraysMatchScalarDefinition) {
  // Exercises the vector path (many full blocks) and the tail; expected values by plain loops.
  std::vector<double> a(10007), b(10007);
  for (size_t i = 0; i < a.size(); ++i) {
    b[i] = std::sin(static_cast<double>(i)) * 3;
    a[i] = b[i] + (static_cast<double>(i % 7) - 3) * 1e-4;
  }
  double dd = 0, mx = 0, mr = 0;
  int64_t c1 = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = std::fabs(a[i] - b[i]);
    dd += d * d;
    mx = std::max(mx, d);
    double re = b[i] == 0 ? d / std::numeric_limits<double>::epsilon() : d / std::fabs(b[i]);
    mr = std::max(mr, re);
    c1 += re < 1e-3;
  }
  PairMetrics m = compute_metrics(view(a), view(b), Tolerance{});
  EXPECT_NEAR(m.euc_dist, std::sqrt(dd), 1e-12);
  EXPECT_DOUBLE_EQ(m.max_abs_err, mx);
  EXPECT_NEAR(m.max_rel_err, mr, mr * 1e-12);
  EXPECT_EQ(static_cast<int64_t>(m.one_thousandth_ratio * a.size() + 0.5), c1);
}

TEST(Metrics, NonFiniteAtSamePositionsAreZeroedElsewhereMismatch) {
  const double nan = std::nan(""), inf = INFINITY;
  std::vector<double> a = {1, nan, inf, 2}, b = {1, nan, inf, 2};
  PairMetrics m = compute_metrics(view(a), view(b), Tolerance{});
  EXPECT_EQ(m.nonfinite_position_mismatches, 0);
  EXPECT_EQ(m.a.nan, 1);
  EXPECT_EQ(m.a.inf, 1);
  EXPECT_DOUBLE_EQ(m.max_abs_err, 0);
  EXPECT_EQ(m.allclose_mismatches, 0);  // nan and inf in the same places are equal (equal_nan=True)
  EXPECT_EQ(msprobe_accuracy(m), "Yes");
  std::vector<double> c = {1, 2, inf, 2};
  PairMetrics m2 = compute_metrics(view(c), view(b), Tolerance{});
  EXPECT_EQ(m2.nonfinite_position_mismatches, 1);
  EXPECT_EQ(msprobe_accuracy(m2), "No");
}

TEST(Metrics, FortranOrderAgainstCOrder) {
  // Logical 2x3 matrix [[1,2,3],[4,5,6]]: C storage 1..6, Fortran storage 1,4,2,5,3,6.
  std::vector<double> c = {1, 2, 3, 4, 5, 6}, f = {1, 4, 2, 5, 3, 6};
  PairMetrics m = compute_metrics(view(c, {2, 3}), view(f, {2, 3}, true), Tolerance{});
  EXPECT_DOUBLE_EQ(m.max_abs_err, 0);
}

TEST(Metrics, Fp16RangeCountedOnReference) {
  std::vector<double> a = {1, 2}, b = {70000, -65505};
  PairMetrics m = compute_metrics(view(a), view(b), Tolerance{});
  EXPECT_EQ(m.b.beyond_fp16, 2);
  EXPECT_EQ(m.a.beyond_fp16, 0);
}

TEST(Verdict, MsprobeRuleThresholds) {
  PairMetrics m;
  m.cosine = 0.995;
  m.max_abs_err = 0.5;
  EXPECT_EQ(msprobe_accuracy(m), "Yes");
  m.cosine = 0.98;  // cos < 0.99 and max abs err > 0.001
  EXPECT_EQ(msprobe_accuracy(m), "No");
  m.max_abs_err = 0.0005;
  EXPECT_EQ(msprobe_accuracy(m), "Yes");
  m.cosine = 0.89;  // cos < 0.9
  EXPECT_EQ(msprobe_accuracy(m), "No");
  m.cosine = 1;
  m.max_abs_err = 1.5;  // max abs err > 1
  EXPECT_EQ(msprobe_accuracy(m), "No");
}

TEST(Verdict, TorchTestingTolerancesLoosestOfPair) {
  Tolerance t = tolerance_for_pair("bfloat16", "float32");
  EXPECT_DOUBLE_EQ(t.rtol, 1.6e-2);
  EXPECT_DOUBLE_EQ(t.atol, 1e-5);
  EXPECT_DOUBLE_EQ(tolerance_for("torch.float16").rtol, 1e-3);
  EXPECT_DOUBLE_EQ(tolerance_for("int64").rtol, 0);
}

TEST(Verdict, StatisticsRuleUsesMagnitude) {
  SummaryStats a, b;
  a.max = 1.0; b.max = 3.0;  // |1-3| / (3 + 1e-10) = 0.67 > 0.5
  StatsDiff d = compare_stats(a, b);
  EXPECT_TRUE(d.warning);
  ASSERT_TRUE(d.rel[0]);
  EXPECT_DOUBLE_EQ(*d.rel[0], 2.0 / 3.0);
  a.max = 2.0;  // 1 / 3 < 0.5
  EXPECT_FALSE(compare_stats(a, b).warning);
}

}  // namespace
}  // namespace banjia::compare
