// The comparison on the real H200 runs and on constructed runs, plus the policy data file.
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "bench/comparison.h"
#include "common/embedded_data.h"
#include "common/errors.h"
#include "fixture_path.h"

namespace banjia::bench {
namespace {

const std::string kFixtures = banjia::test::fixture("gpu-h200/bench").string() + "/";

// A string_view name: with `const std::string&`, GCC 14's -Wdangling-reference flags every call
// with a literal (a temporary string bound to a parameter of a function returning a reference).
const MetricComparison& metric(const BenchComparison& c, size_t run, std::string_view name) {
  for (const auto& m : c.vs_baseline.at(run))
    if (m.metric == name) return m;
  throw std::runtime_error("no metric " + std::string(name));
}

TEST(BenchComparison, H200Bf16ChannelsLastIsFasterThanFp32) {
  std::vector<bench::Run> runs{load_run(kFixtures + "resnet50_fp32.csv"), load_run(kFixtures + "resnet50_bf16_channels_last.csv")};
  for (auto& r : runs) r.batch_size = 64;
  BenchComparison c = compare_runs(runs, default_policy());
  const auto& t = metric(c, 1, "step_time");
  EXPECT_EQ(t.verdict, "faster");
  EXPECT_LT(*t.ci_high, 1.0);  // the interval excludes 1
  EXPECT_LE(*t.ci_low, t.ratio);
  const auto& thr = metric(c, 1, "throughput");
  EXPECT_EQ(thr.verdict, "faster");
  EXPECT_GT(*thr.ci_low, 1.0);
  EXPECT_NEAR(thr.ratio, 1.0 / t.ratio, 1e-12);
  // timings.json (written by the H200 run): 1959.68 and 2797.73 images/s from the unrounded medians.
  EXPECT_NEAR(*c.runs[0].throughput_per_s, 1959.68, 0.05);
  EXPECT_NEAR(*c.runs[1].throughput_per_s, 2797.73, 0.05);
  EXPECT_TRUE(c.warnings.empty());
}

TEST(BenchComparison, SameRunIsNoSignificantDifference) {
  bench::Run r = load_run(kFixtures + "gpt2_sdpa_bf16.csv");
  BenchComparison c = compare_runs({r, r}, default_policy());
  EXPECT_EQ(metric(c, 1, "step_time").verdict, "no significant difference");
  EXPECT_DOUBLE_EQ(metric(c, 1, "step_time").ratio, 1.0);
}

TEST(BenchComparison, SlowerRunAndWarnings) {
  bench::Run base, other;
  base.label = "gpu";
  other.label = "npu";
  for (int i = 0; i < 12; ++i) base.times_ms.push_back(10 + 0.01 * i);
  for (int i = 0; i < 12; ++i) other.times_ms.push_back(20 + 0.02 * i);
  base.batch_size = 64;
  other.batch_size = 32;
  base.power_w = {200, 210, 205};
  other.power_w = {150, 155, 152};
  BenchComparison c = compare_runs({base, other}, default_policy());
  EXPECT_EQ(metric(c, 1, "step_time").verdict, "slower");
  EXPECT_TRUE(any_significantly_slower(c));
  EXPECT_EQ(metric(c, 1, "power").verdict, "lower");
  // energy/sample = P * t / batch: (152 * 20.11 / 32) / (205 * 10.055 / 64) with the medians by hand
  // (12 values: the median is the mean of the 6th and 7th).
  EXPECT_NEAR(*c.runs[1].energy_per_sample_j, 152 * 0.02011 / 32, 1e-12);
  EXPECT_NEAR(metric(c, 1, "energy_per_sample").ratio, (152 * 20.11 / 32) / (205 * 10.055 / 64), 1e-9);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("batch size 32 differs"), std::string::npos);
  EXPECT_TRUE(any_warning(c));
}

// A run flagged too short or too noisy to conclude gets no direction for the metrics of its step
// times, even where the interval alone would exclude 1; the power verdict does not depend on them.
TEST(BenchComparison, ShortAndNoisyRunsAreInconclusive) {
  bench::Run base, other;
  for (int i = 0; i < 12; ++i) base.times_ms.push_back(10 + 0.01 * i);
  for (int i = 0; i < 5; ++i) other.times_ms.push_back(i % 2 ? 20 : 30);  // 5 iterations, CV ~ 25 %
  base.batch_size = other.batch_size = 64;
  base.power_w = {200, 210, 205};
  other.power_w = {150, 155, 152};
  BenchComparison c = compare_runs({base, other}, default_policy());
  const auto& step = metric(c, 1, "step_time");
  EXPECT_GT(*step.ci_low, 1.0);  // the interval alone says slower...
  EXPECT_EQ(step.verdict, "inconclusive");  // ...but the run is too noisy to conclude
  EXPECT_EQ(step.inconclusive_reason, "too noisy");
  EXPECT_EQ(metric(c, 1, "throughput").verdict, "inconclusive");
  EXPECT_EQ(metric(c, 1, "energy_per_sample").verdict, "inconclusive");
  EXPECT_EQ(metric(c, 1, "power").verdict, "lower");
  EXPECT_FALSE(any_significantly_slower(c));
  ASSERT_EQ(c.runs[1].warnings.size(), 2u);
  EXPECT_NE(c.runs[1].warnings[0].find("too short"), std::string::npos);
  EXPECT_NE(c.runs[1].warnings[1].find("too noisy"), std::string::npos);

  bench::Run steady = other;  // short but steady: the short warning alone also forbids a direction
  steady.times_ms = {20, 20.1, 20.2, 20.1, 20};
  BenchComparison s = compare_runs({base, steady}, default_policy());
  EXPECT_EQ(metric(s, 1, "step_time").verdict, "inconclusive");
  EXPECT_EQ(metric(s, 1, "step_time").inconclusive_reason, "too short");
}

// One reading (peak memory always; times or power when a run has one value) or readings without spread
// give no interval, and without an interval no direction is claimed.
TEST(BenchComparison, NoIntervalMeansNoDirection) {
  bench::Run base, other;
  for (int i = 0; i < 12; ++i) base.times_ms.push_back(10 + 0.01 * i);
  other.times_ms = base.times_ms;
  base.peak_memory_bytes = 1e9;
  other.peak_memory_bytes = 0.982e9;  // 1.8 % less, in one reading each
  base.memory_kind = other.memory_kind = "allocated";
  base.power_w = {200};
  other.power_w = {150};
  BenchComparison c = compare_runs({base, other}, default_policy());
  const auto& mem = metric(c, 1, "peak_memory");
  EXPECT_DOUBLE_EQ(mem.ratio, 0.982);
  EXPECT_EQ(mem.verdict, "inconclusive");
  EXPECT_EQ(mem.no_ci_reason, "1 reading");
  EXPECT_FALSE(mem.ci_low.has_value());
  EXPECT_EQ(metric(c, 1, "power").verdict, "inconclusive");
  EXPECT_EQ(metric(c, 1, "power").no_ci_reason, "1 reading");

  bench::Run flat_base, flat_other;
  flat_base.times_ms.assign(20, 10.0);
  flat_other.times_ms.assign(20, 12.0);
  BenchComparison f = compare_runs({flat_base, flat_other}, default_policy());
  EXPECT_EQ(metric(f, 1, "step_time").verdict, "inconclusive");
  EXPECT_EQ(metric(f, 1, "step_time").no_ci_reason, "no spread");
  EXPECT_DOUBLE_EQ(metric(f, 1, "step_time").ratio, 1.2);
}

TEST(BenchPolicy, EverySettingHasASource) {
  auto files = embedded_under("data/bench/");
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    toml::table t = toml::parse(f.contents);
    const auto* arr = t["setting"].as_array();
    ASSERT_NE(arr, nullptr) << f.path;
    for (const auto& node : *arr) {
      auto source = (*node.as_table())["source"].value<std::string>();
      EXPECT_TRUE(source && !source->empty()) << f.path;
    }
  }
  const Policy& p = default_policy();
  EXPECT_EQ(p.min_iterations, 10);
  EXPECT_DOUBLE_EQ(p.confidence, 0.95);
}

TEST(BenchPolicy, RejectsSettingWithoutSource) {
  EXPECT_THROW(parse_policy("[[setting]]\nname = \"max_cv\"\nvalue = 0.1\n", "p.toml"), InputError);
  EXPECT_THROW(parse_policy("x = 1\n", "p.toml"), InputError);
}

}  // namespace
}  // namespace banjia::bench
