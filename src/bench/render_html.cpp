#include <fmt/format.h>

#include "bench/render.h"
#include "common/html.h"
#include "common/svg_distribution.h"

namespace banjia::bench {

std::string render_bench_html(const BenchComparison& c) {
  TableModel t = comparison_table(c);
  std::string body = html::table(t.header, t.rows);
  auto warnings = all_warnings(c);
  if (!warnings.empty()) {
    body += "<h2>Warnings</h2><ul>";
    for (const auto& w : warnings) body += "<li class=\"bad\">" + html::escape(w) + "</li>";
    body += "</ul>\n";
  }
  html::DistributionChart dist;
  dist.title = "Per-iteration step time (box: quartiles and median; dots: every iteration; red: Tukey outliers)";
  dist.unit = "ms";
  html::LineChart line;
  line.title = "Step time by iteration";
  line.x_label = "iteration (warm-up excluded)";
  line.y_label = "ms";
  for (const auto& r : c.runs) {
    const SampleSummary& t = r.time;
    dist.series.push_back({r.run.label, r.run.times_ms, t.q1, t.median, t.q3, t.fence_low, t.fence_high});
    line.series.push_back({r.run.label, r.run.times_ms});
  }
  body += "<h2>Distributions</h2>\n" + html::svg_distribution_chart(dist) + html::svg_line_chart(line);
  body += fmt::format("<p>Ratios are other/baseline medians with a {:.0f} % percentile-bootstrap interval "
                      "({} resamples, seed {}); quantiles use numpy's linear definition.</p>\n",
                      c.policy.confidence * 100, c.policy.bootstrap_resamples, c.policy.bootstrap_seed);
  return html::page("banjia bench compare", body);
}

}  // namespace banjia::bench
