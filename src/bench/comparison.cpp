#include "bench/comparison.h"

#include <fmt/format.h>

namespace banjia::bench {

namespace {

RunStats stats_for(Run run, const Policy& p) {
  RunStats s;
  s.time = summarize(run.times_ms, p.tukey_k);
  const double median_s = s.time.median / 1e3;
  if (run.batch_size) s.throughput_per_s = *run.batch_size / median_s;
  if (!run.power_w.empty()) {
    s.power_median_w = summarize(run.power_w, p.tukey_k).median;
    if (run.batch_size) s.energy_per_sample_j = *s.power_median_w * median_s / *run.batch_size;
  }
  if (s.time.n < static_cast<size_t>(p.min_iterations))
    s.warnings.push_back(fmt::format("too short to conclude: {} iterations (fewer than {})", s.time.n, p.min_iterations));
  if (s.time.cv > p.max_cv)
    s.warnings.push_back(fmt::format("too noisy to conclude: coefficient of variation {:.1f} % (above {:.0f} %)",
                                     s.time.cv * 100, p.max_cv * 100));
  if (run.skipped)
    s.warnings.push_back(fmt::format("{} invalid value(s) skipped (first: {})", run.skipped, run.first_skip));
  s.run = std::move(run);
  return s;
}

std::string verdict_for(const Interval& ci, Direction dir, bool timing) {
  // ratio = other / baseline. For time-like metrics below 1 is better; for throughput above 1.
  const bool below = ci.high < 1.0, above = ci.low > 1.0;
  if (!below && !above) return "no significant difference";
  const bool better = dir == Direction::lower_is_better ? below : above;
  if (timing) return better ? "faster" : "slower";
  return below ? "lower" : "higher";
}

MetricComparison with_ci(std::string metric, Direction dir, const Interval& ci, bool timing) {
  MetricComparison m;
  m.metric = std::move(metric);
  m.direction = dir;
  m.ratio = ci.estimate;
  m.ci_low = ci.low;
  m.ci_high = ci.high;
  m.verdict = verdict_for(ci, dir, timing);
  return m;
}

std::vector<MetricComparison> compare_to(const RunStats& base, const RunStats& other, const Policy& p,
                                         uint64_t seed) {
  BootstrapSpec spec{p.bootstrap_resamples, seed, p.confidence};
  const auto& bt = base.run.times_ms;
  const auto& ot = other.run.times_ms;
  std::vector<MetricComparison> out;
  Interval time = bootstrap_median_ratio({&ot}, {&bt}, spec);
  out.push_back(with_ci("step_time", Direction::lower_is_better, time, true));
  if (base.throughput_per_s && other.throughput_per_s) {
    // throughput ratio = (b_o / t_o) / (b_b / t_b): the inverse time interval scaled by the batch ratio.
    const double k = *other.run.batch_size / *base.run.batch_size;
    Interval thr{k / time.estimate, k / time.high, k / time.low};
    out.push_back(with_ci("throughput", Direction::higher_is_better, thr, true));
  }
  if (base.run.peak_memory_bytes && other.run.peak_memory_bytes && *base.run.peak_memory_bytes > 0) {
    MetricComparison m;
    m.metric = "peak_memory";
    m.ratio = *other.run.peak_memory_bytes / *base.run.peak_memory_bytes;
    m.verdict = m.ratio < 1 ? "lower" : m.ratio > 1 ? "higher" : "same";  // one measurement: no interval
    out.push_back(m);
  }
  if (!base.run.power_w.empty() && !other.run.power_w.empty()) {
    Interval pw = bootstrap_median_ratio({&other.run.power_w}, {&base.run.power_w}, spec);
    out.push_back(with_ci("power", Direction::lower_is_better, pw, false));
    if (base.energy_per_sample_j && other.energy_per_sample_j) {
      // energy/sample ∝ power × time / batch: resample power and time of both runs jointly.
      Interval e = bootstrap_median_ratio({&other.run.power_w, &ot}, {&base.run.power_w, &bt}, spec);
      const double k = *base.run.batch_size / *other.run.batch_size;
      out.push_back(with_ci("energy_per_sample", Direction::lower_is_better, {e.estimate * k, e.low * k, e.high * k},
                            false));
    }
  }
  return out;
}

}  // namespace

Comparison compare_runs(std::vector<Run> runs, const Policy& p) {
  Comparison c;
  c.policy = p;
  for (auto& r : runs) c.runs.push_back(stats_for(std::move(r), p));
  c.vs_baseline.resize(c.runs.size());
  if (c.runs.empty()) return c;
  const RunStats& base = c.runs[0];
  for (size_t i = 1; i < c.runs.size(); ++i) {
    const RunStats& other = c.runs[i];
    // Each pair gets its own stream (seed + index) so adding a run leaves earlier intervals unchanged.
    c.vs_baseline[i] = compare_to(base, other, p, p.bootstrap_seed + i);
    const auto& ob = other.run.batch_size;
    const auto& bb = base.run.batch_size;
    if (ob && bb && *ob != *bb)
      c.warnings.push_back(fmt::format("{}: batch size {} differs from the baseline's {}: compare throughput, not step time",
                                       other.run.label, *ob, *bb));
    if (other.throughput_per_s && base.throughput_per_s && other.run.sample_unit != base.run.sample_unit)
      c.warnings.push_back(fmt::format("{}: throughput counts '{}' but the baseline counts '{}'", other.run.label,
                                       other.run.sample_unit, base.run.sample_unit));
    if (other.run.peak_memory_bytes && base.run.peak_memory_bytes && other.run.memory_kind != base.run.memory_kind)
      c.warnings.push_back(fmt::format("{}: peak memory is {} but the baseline's is {}: not comparable",
                                       other.run.label, other.run.memory_kind, base.run.memory_kind));
  }
  return c;
}

bool any_significantly_slower(const Comparison& c) {
  for (const auto& list : c.vs_baseline)
    for (const auto& m : list)
      if (m.metric == "step_time" && m.verdict == "slower") return true;
  return false;
}

bool any_warning(const Comparison& c) {
  if (!c.warnings.empty()) return true;
  for (const auto& r : c.runs)
    if (!r.warnings.empty()) return true;
  return false;
}

}  // namespace banjia::bench
