// `banjia bench compare BASELINE OTHER...`: the table of docs/sources/tuning-article.md "6. Monitoring"
// (step time, throughput, memory, power, energy) with one column per run, ratios to the baseline with
// bootstrap confidence intervals, and a verdict per metric. Inputs are banjia.bench recordings (JSON) or
// `iteration,ms` CSVs.
#include "bench/command.h"

#include <cstdio>

#include <fmt/format.h>

#include "bench/comparison.h"
#include "bench/render.h"
#include "common/errors.h"
#include "common/file_io.h"

namespace banjia::bench {

int compare_bench_runs(const BenchCompareOptions& o, const OutputOptions& out) {
  std::vector<std::string> labels;
  if (!o.labels.empty()) {
    for (size_t start = 0;;) {
      size_t comma = o.labels.find(',', start);
      labels.push_back(o.labels.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (labels.size() != o.files.size())
      throw InputError("", fmt::format("--labels has {} names for {} files", labels.size(), o.files.size()));
  }
  std::vector<Run> runs;
  for (size_t i = 0; i < o.files.size(); ++i) {
    Run r = load_run(o.files[i]);
    if (!labels.empty()) r.label = labels[i];
    if (!r.batch_size && o.batch_size > 0) r.batch_size = o.batch_size;
    if (!o.sample_unit.empty()) r.sample_unit = o.sample_unit;
    runs.push_back(std::move(r));
  }
  Policy policy = default_policy();
  if (o.seed >= 0) policy.bootstrap_seed = static_cast<uint64_t>(o.seed);
  if (o.resamples > 0) policy.bootstrap_resamples = o.resamples;
  BenchComparison c = compare_runs(std::move(runs), policy);

  std::string text;
  if (out.format == "json") text = render_bench_json(c);
  else if (out.format == "csv") text = render_bench_csv(c);
  else if (out.format == "markdown") text = render_bench_markdown(c);
  else text = render_bench_text(c);
  if (!out.html.empty()) write_file_atomic(out.html, render_bench_html(c));
  out.write(text);
  if (out.format == "csv")  // CSV has no place for prose: warnings go to stderr
    for (const auto& w : all_warnings(c)) std::fprintf(stderr, "banjia: warning: %s\n", w.c_str());

  std::optional<Severity> worst;
  if (any_significantly_slower(c)) worst = Severity::error;
  else if (any_warning(c)) worst = Severity::warning;
  return out.exit_code(worst);
}

}  // namespace banjia::bench
