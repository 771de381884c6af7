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
const MetricComparison& metric(const Comparison& c, size_t run, std::string_view name) {
  for (const auto& m : c.vs_baseline.at(run))
    if (m.metric == name) return m;
  throw std::runtime_error("no metric " + std::string(name));
}

TEST(BenchComparison, H200Bf16ChannelsLastIsFasterThanFp32) {
  std::vector<bench::Run> runs{load_run(kFixtures + "resnet50_fp32.csv"), load_run(kFixtures + "resnet50_bf16_channels_last.csv")};
  for (auto& r : runs) r.batch_size = 64;
  Comparison c = compare_runs(runs, default_policy());
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
  Comparison c = compare_runs({r, r}, default_policy());
  EXPECT_EQ(metric(c, 1, "step_time").verdict, "no significant difference");
  EXPECT_DOUBLE_EQ(metric(c, 1, "step_time").ratio, 1.0);
}

TEST(BenchComparison, SlowerRunAndWarnings) {
  bench::Run base, other;
  base.label = "gpu";
  other.label = "npu";
  for (int i = 0; i < 12; ++i) base.times_ms.push_back(10 + 0.01 * i);
  for (int i = 0; i < 5; ++i) other.times_ms.push_back(i % 2 ? 20 : 30);  // 5 iterations, CV ~ 25 %
  base.batch_size = 64;
  other.batch_size = 32;
  base.peak_memory_bytes = 2e9;
  base.memory_kind = "allocated";
  other.peak_memory_bytes = 1e9;
  other.memory_kind = "allocated";
  base.power_w = {200, 210, 205};
  other.power_w = {150, 155, 152};
  Comparison c = compare_runs({base, other}, default_policy());
  EXPECT_EQ(metric(c, 1, "step_time").verdict, "slower");
  EXPECT_TRUE(any_significantly_slower(c));
  EXPECT_EQ(metric(c, 1, "peak_memory").verdict, "lower");
  EXPECT_DOUBLE_EQ(metric(c, 1, "peak_memory").ratio, 0.5);
  EXPECT_FALSE(metric(c, 1, "peak_memory").ci_low.has_value());
  EXPECT_EQ(metric(c, 1, "power").verdict, "lower");
  // energy/sample = P * t / batch: (152 * 30 / 32) / (205 * 10.055 / 64) with the medians by hand.
  EXPECT_NEAR(*c.runs[1].energy_per_sample_j, 152 * 0.030 / 32, 1e-12);
  EXPECT_NEAR(metric(c, 1, "energy_per_sample").ratio, (152 * 30.0 / 32) / (205 * 10.055 / 64), 1e-9);
  ASSERT_EQ(c.runs[1].warnings.size(), 2u);
  EXPECT_NE(c.runs[1].warnings[0].find("too short"), std::string::npos);
  EXPECT_NE(c.runs[1].warnings[1].find("too noisy"), std::string::npos);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("batch size 32 differs"), std::string::npos);
  EXPECT_TRUE(any_warning(c));
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
