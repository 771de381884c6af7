#include <cmath>

#include "bench/render.h"
#include "common/json_writer.h"
#include "common/report.h"

namespace banjia::bench {

namespace {

void write_time(JsonWriter& w, const SampleSummary& s) {
  w.key("time_ms").begin_object();
  w.field("median", s.median).field("p95", s.p95).field("mean", s.mean).field("stdev", s.stdev);
  w.field("cv", s.cv).field("min", s.min).field("max", s.max).field("q1", s.q1).field("q3", s.q3);
  w.field("fence_low", s.fence_low).field("fence_high", s.fence_high);
  w.field("outliers_low", static_cast<uint64_t>(s.outliers_low));
  w.field("outliers_high", static_cast<uint64_t>(s.outliers_high));
  w.end_object();
}

void write_metric(JsonWriter& w, const MetricComparison& m, double confidence) {
  w.begin_object();
  w.field("metric", m.metric).field("ratio", m.ratio).field("ci_low", m.ci_low).field("ci_high", m.ci_high);
  if (m.ci_low) w.field("confidence", confidence);
  else w.key("confidence").null();
  w.field("better", std::string(m.direction == Direction::lower_is_better ? "lower" : "higher"));
  w.field("verdict", m.verdict);
  auto text_or_null = [&](const char* key, const std::string& text) {
    if (text.empty()) w.key(key).null();
    else w.field(key, text);
  };
  text_or_null("no_ci_reason", m.no_ci_reason);
  text_or_null("inconclusive_reason", m.inconclusive_reason);
  w.end_object();
}

void write_run(JsonWriter& w, const BenchComparison& c, size_t i) {
  const RunStats& s = c.runs[i];
  const Run& r = s.run;
  w.begin_object();
  w.field("label", r.label).field("file", r.file).field("device", r.device).field("device_name", r.device_name);
  w.field("timing_method", r.timing_method);
  w.field("iterations", static_cast<uint64_t>(s.time.n)).field("skipped", static_cast<uint64_t>(r.skipped));
  w.field("batch_size", r.batch_size).field("sample_unit", r.sample_unit);
  write_time(w, s.time);
  w.field("throughput_per_s", s.throughput_per_s);
  w.field("peak_memory_bytes", r.peak_memory_bytes);
  if (r.memory_kind.empty()) w.key("memory_kind").null();
  else w.field("memory_kind", r.memory_kind);
  w.field("power_median_w", s.power_median_w).field("power_samples", static_cast<uint64_t>(r.power_w.size()));
  w.field("energy_per_sample_j", s.energy_per_sample_j);
  w.key("warnings").begin_array();
  for (const auto& msg : s.warnings) w.value(msg);
  w.end_array();
  w.key("vs_baseline");
  if (i == 0) {
    w.null();
  } else {
    w.begin_array();
    for (const auto& m : c.vs_baseline[i]) write_metric(w, m, c.policy.confidence);
    w.end_array();
  }
  w.key("times_ms").begin_array();
  for (double t : r.times_ms) w.value(t);
  w.end_array();
  w.end_object();
}

}  // namespace

std::string render_bench_json(const BenchComparison& c) {
  JsonWriter w;
  w.begin_object();
  w.field("tool", "banjia").field("version", banjia_version()).field("command", "bench compare");
  w.field("schema_version", 1);
  w.key("policy").begin_object();
  w.field("min_iterations", c.policy.min_iterations).field("max_cv", c.policy.max_cv);
  w.field("confidence", c.policy.confidence).field("bootstrap_resamples", c.policy.bootstrap_resamples);
  w.field("bootstrap_seed", static_cast<uint64_t>(c.policy.bootstrap_seed)).field("tukey_k", c.policy.tukey_k);
  w.field("quantile_method", "linear (numpy default, Hyndman-Fan type 7)");
  w.end_object();
  w.field("baseline", c.runs.empty() ? std::string() : c.runs[0].run.label);
  w.key("runs").begin_array();
  for (size_t i = 0; i < c.runs.size(); ++i) write_run(w, c, i);
  w.end_array();
  w.key("warnings").begin_array();
  for (const auto& msg : c.warnings) w.value(msg);
  w.end_array();
  w.end_object();
  return w.take() + "\n";
}

}  // namespace banjia::bench
