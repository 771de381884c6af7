// HTML report: per-entry error curve (relative L2 error and 1 - cosine, log scale) in execution order,
// then the table of entries.
#include <cmath>

#include <fmt/format.h>

#include "common/html.h"
#include "compare/render.h"

namespace banjia::compare {

std::string render_html(const Dump& a, const Dump& b, const CompareResult& r) {
  html::LineChart chart;
  chart.title = "Error per entry in execution order (A vs reference B)";
  chart.x_label = "entry (execution order)";
  chart.y_label = "error (log scale)";
  chart.log_y = true;
  html::LineSeries rel{"relative L2 error ‖a−b‖/‖b‖", {}}, cos{"1 − cosine", {}};
  for (const EntryResult& e : r.entries) {
    bool ok = e.metrics.has_value();
    rel.y.push_back(ok && e.metrics->rel_l2_err > 0 ? e.metrics->rel_l2_err : NAN);
    double c = ok ? 1.0 - e.metrics->cosine : NAN;
    cos.y.push_back(c > 0 ? c : NAN);
  }
  chart.series = {rel, cos};
  std::string body;
  body += fmt::format("<p>A: <code>{}</code> ({}) &nbsp; B (reference): <code>{}</code> ({})</p>", html::escape(a.path),
                      html::escape(a.format), html::escape(b.path), html::escape(b.format));
  body += fmt::format("<p>{} compared: {} pass, {} warn, {} fail, {} error; unmatched {} in A, {} in B.</p>",
                      r.entries.size(), r.count(Status::kPass), r.count(Status::kWarn), r.count(Status::kFail),
                      r.count(Status::kError), r.unmatched_a.size(), r.unmatched_b.size());
  auto note = [&](const char* label, const std::optional<size_t>& i) {
    if (i) body += fmt::format("<p>{}: <code>{}</code></p>", label, html::escape(r.entries[*i].a->key));
  };
  note("First divergence", r.first_divergence);
  note("First nan/inf in A", r.first_nonfinite_a);
  note("First nan/inf in B", r.first_nonfinite_b);
  note("Reference first leaves fp16's range", r.first_ref_beyond_fp16);
  if (r.largest_jump)
    body += fmt::format("<p>Largest error jump: <code>{}</code> ({:.1f}x)</p>",
                        html::escape(r.entries[r.largest_jump->index].a->key), r.largest_jump->factor);
  body += html::svg_line_chart(chart);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < r.entries.size(); ++i) {
    const EntryResult& e = r.entries[i];
    const PairMetrics* m = e.metrics ? &*e.metrics : nullptr;
    auto f = [&](double v) { return m ? fmt::format("{:.4g}", v) : std::string("-"); };
    rows.push_back({std::to_string(i), e.a->key, std::string(status_name(e.status)), f(m ? m->cosine : 0),
                    f(m ? m->max_abs_err : 0), f(m ? m->max_rel_err : 0), f(m ? m->rel_l2_err : 0),
                    e.msprobe_result, e.message});
  }
  body += html::table({"#", "key", "status", "cosine", "max abs err", "max rel err", "rel L2 err", "msprobe", "message"},
                      rows);
  return html::page("banjia compare", body);
}

}  // namespace banjia::compare
