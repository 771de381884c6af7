// Long-form CSV: one row per (run, metric), easy to load into pandas or a spreadsheet.
#include <fmt/format.h>

#include "bench/render.h"
#include "common/report.h"

namespace banjia::bench {

namespace {
std::string cell(const std::optional<double>& v) { return v ? fmt::format("{:.17g}", *v) : ""; }
}  // namespace

std::string render_bench_csv(const BenchComparison& c) {
  std::string out = "run,file,metric,unit,value,ratio_to_baseline,ci_low,ci_high,verdict\n";
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const RunStats& s = c.runs[i];
    auto row = [&](std::string_view metric, std::string_view unit, std::optional<double> value,
                   std::string_view compared) {
      const MetricComparison* m = nullptr;
      if (i > 0)
        for (const auto& mc : c.vs_baseline[i])
          if (mc.metric == compared) m = &mc;
      out += fmt::format("{},{},{},{},{},{},{},{},{}\n", csv_field(s.run.label), csv_field(s.run.file), metric,
                         csv_field(unit), cell(value), m ? cell(m->ratio) : "", m ? cell(m->ci_low) : "",
                         m ? cell(m->ci_high) : "", m ? csv_field(m->verdict) : "");
    };
    row("iterations", "count", static_cast<double>(s.time.n), "");
    row("skipped", "count", static_cast<double>(s.run.skipped), "");
    row("median_step", "ms", s.time.median, "step_time");
    row("p95_step", "ms", s.time.p95, "");
    row("cv", "fraction", s.time.cv, "");
    row("outliers", "count", static_cast<double>(s.time.outliers_low + s.time.outliers_high), "");
    row("throughput", s.run.sample_unit + "/s", s.throughput_per_s, "throughput");
    row("peak_memory", "bytes", s.run.peak_memory_bytes, "peak_memory");
    row("power_median", "W", s.power_median_w, "power");
    row("energy_per_sample", "J", s.energy_per_sample_j, "energy_per_sample");
  }
  return out;
}

}  // namespace banjia::bench
