#include "bench/comparison.h"

#include <fmt/format.h>

namespace banjia::bench {

namespace {

// The step time decides whether a run can be concluded from at all; `stats_for` flags it.
struct Conclusiveness {
  bool too_short = false, too_noisy = false;
};

RunStats stats_for(Run run, const Policy& p, Conclusiveness& flags) {
  RunStats s;
  s.time = summarize_sample(run.times_ms, p.tukey_k);
  const double median_s = s.time.median / 1e3;
  if (run.batch_size) s.throughput_per_s = *run.batch_size / median_s;
  if (!run.power_w.empty()) {
    s.power_median_w = summarize_sample(run.power_w, p.tukey_k).median;
    if (run.batch_size) s.energy_per_sample_j = *s.power_median_w * median_s / *run.batch_size;
  }
  flags.too_short = s.time.n < static_cast<size_t>(p.min_iterations);
  flags.too_noisy = s.time.cv > p.max_cv;
  if (flags.too_short)
    s.warnings.push_back(fmt::format("too short to conclude: {} iterations (fewer than {})", s.time.n, p.min_iterations));
  if (flags.too_noisy)
    s.warnings.push_back(fmt::format("too noisy to conclude: coefficient of variation {:.1f} % (above {:.0f} %)",
                                     s.time.cv * 100, p.max_cv * 100));
  if (run.skipped)
    s.warnings.push_back(fmt::format("{} invalid value(s) skipped (first: {})", run.skipped, run.first_skip));
  s.run = std::move(run);
  return s;
}

// An interval needs at least two readings on every side, and a spread: with one reading (or identical
// readings) every resample is the same ratio, and a zero-width "interval" would claim any difference.
std::string no_ci_reason(const std::vector<const std::vector<double>*>& samples, const Interval& ci) {
  for (const auto* v : samples)
    if (v->size() < 2) return "1 reading";
  return ci.low == ci.high ? "no spread" : "";
}

std::string verdict_for(const Interval& ci, Direction dir, bool timing) {
  // ratio = other / baseline. For time-like metrics below 1 is better; for throughput above 1.
  const bool below = ci.high < 1.0, above = ci.low > 1.0;
  if (!below && !above) return "no significant difference";
  const bool better = dir == Direction::lower_is_better ? below : above;
  if (timing) return better ? "faster" : "slower";
  return below ? "lower" : "higher";
}

// `samples`: every sample the interval resampled; `step_time_caveat`: for metrics computed from the step
// times, "too noisy" / "too short" when a run's warning says no conclusion can be drawn from it.
MetricComparison judged(std::string metric, Direction dir, const Interval& ci, bool timing,
                        const std::vector<const std::vector<double>*>& samples, const std::string& step_time_caveat) {
  MetricComparison m;
  m.metric = std::move(metric);
  m.direction = dir;
  m.ratio = ci.estimate;
  m.no_ci_reason = no_ci_reason(samples, ci);
  if (!m.no_ci_reason.empty()) {
    m.verdict = "inconclusive";
    m.inconclusive_reason = "no CI (" + m.no_ci_reason + ")";
    return m;
  }
  m.ci_low = ci.low;
  m.ci_high = ci.high;
  m.verdict = verdict_for(ci, dir, timing);
  if (!step_time_caveat.empty()) {
    m.verdict = "inconclusive";
    m.inconclusive_reason = step_time_caveat;
  }
  return m;
}

std::string caveat_of(const Conclusiveness& base, const Conclusiveness& other) {
  if (base.too_noisy || other.too_noisy) return "too noisy";
  if (base.too_short || other.too_short) return "too short";
  return "";
}

std::vector<MetricComparison> compare_to(const RunStats& base, const RunStats& other, const std::string& caveat,
                                         const Policy& p, uint64_t seed) {
  BootstrapSpec spec{p.bootstrap_resamples, seed, p.confidence};
  const auto& bt = base.run.times_ms;
  const auto& ot = other.run.times_ms;
  std::vector<MetricComparison> out;
  Interval time = bootstrap_median_ratio({&ot}, {&bt}, spec);
  out.push_back(judged("step_time", Direction::lower_is_better, time, true, {&ot, &bt}, caveat));
  if (base.throughput_per_s && other.throughput_per_s) {
    // throughput ratio = (b_o / t_o) / (b_b / t_b): the inverse time interval scaled by the batch ratio.
    const double k = *other.run.batch_size / *base.run.batch_size;
    Interval thr{k / time.estimate, k / time.high, k / time.low};
    out.push_back(judged("throughput", Direction::higher_is_better, thr, true, {&ot, &bt}, caveat));
  }
  if (base.run.peak_memory_bytes && other.run.peak_memory_bytes && *base.run.peak_memory_bytes > 0) {
    const std::vector<double> one_reading{*other.run.peak_memory_bytes / *base.run.peak_memory_bytes};
    Interval memory{one_reading[0], one_reading[0], one_reading[0]};
    out.push_back(judged("peak_memory", Direction::lower_is_better, memory, false, {&one_reading}, ""));
  }
  if (!base.run.power_w.empty() && !other.run.power_w.empty()) {
    const auto& bp = base.run.power_w;
    const auto& op = other.run.power_w;
    Interval pw = bootstrap_median_ratio({&op}, {&bp}, spec);
    out.push_back(judged("power", Direction::lower_is_better, pw, false, {&op, &bp}, ""));
    if (base.energy_per_sample_j && other.energy_per_sample_j) {
      // energy/sample ∝ power × time / batch: resample power and time of both runs jointly.
      Interval e = bootstrap_median_ratio({&op, &ot}, {&bp, &bt}, spec);
      const double k = *base.run.batch_size / *other.run.batch_size;
      out.push_back(judged("energy_per_sample", Direction::lower_is_better, {e.estimate * k, e.low * k, e.high * k},
                           false, {&op, &ot, &bp, &bt}, caveat));
    }
  }
  return out;
}

}  // namespace

BenchComparison compare_runs(std::vector<Run> runs, const Policy& p) {
  BenchComparison c;
  c.policy = p;
  std::vector<Conclusiveness> flags(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) c.runs.push_back(stats_for(std::move(runs[i]), p, flags[i]));
  c.vs_baseline.resize(c.runs.size());
  if (c.runs.empty()) return c;
  const RunStats& base = c.runs[0];
  for (size_t i = 1; i < c.runs.size(); ++i) {
    const RunStats& other = c.runs[i];
    // Each pair gets its own stream (seed + index) so adding a run leaves earlier intervals unchanged.
    c.vs_baseline[i] = compare_to(base, other, caveat_of(flags[0], flags[i]), p, p.bootstrap_seed + i);
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

bool any_significantly_slower(const BenchComparison& c) {
  for (const auto& list : c.vs_baseline)
    for (const auto& m : list)
      if (m.metric == "step_time" && m.verdict == "slower") return true;
  return false;
}

bool any_warning(const BenchComparison& c) {
  if (!c.warnings.empty()) return true;
  for (const auto& r : c.runs)
    if (!r.warnings.empty()) return true;
  return false;
}

}  // namespace banjia::bench
