// HTML report: summary and localisation, the per-entry error curve (relative L2 error and 1 - cosine,
// log scale) in execution order with the first divergence marked, the table of entries coloured by
// status, and the entries of either side that found no match.
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/html.h"
#include "compare/report/render.h"

namespace banjia::compare {

namespace {
std::string status_class(Status s) { return "status-" + std::string(status_name(s)); }

html::LineChart error_chart(const CompareResult& r) {
  html::LineChart chart;
  chart.title = "Error per entry in execution order (A vs reference B)";
  chart.x_label = "entry index in A's execution order (module name under the ticks)";
  chart.y_label = "error (log scale)";
  chart.log_y = true;
  html::LineSeries rel{"relative L2 error ‖a−b‖/‖b‖", {}}, cos{"1 − cosine", {}}, floor{"noise floor", {}};
  for (const EntryResult& e : r.entries) {
    bool ok = e.metrics.has_value();
    rel.y.push_back(ok && e.metrics->rel_l2_err > 0 ? e.metrics->rel_l2_err : NAN);
    double c = ok ? 1.0 - e.metrics->cosine : NAN;
    cos.y.push_back(c > 0 ? c : NAN);
    floor.y.push_back(e.noise.assessed && e.noise.floor > 0 ? e.noise.floor : NAN);
    chart.x_names.push_back(display_module(*e.a));
  }
  chart.series = {rel, cos, floor};
  if (r.suspect) {
    const EntryResult& e = r.entries[*r.suspect];
    chart.markers.push_back({static_cast<double>(*r.suspect),
                             fmt::format("suspect: #{} {} ({:.1f}x its noise floor)", *r.suspect,
                                         display_module(*e.a), e.noise.ratio),
                             "#a0a"});
  }
  if (r.first_divergence) {
    const EntryResult& e = r.entries[*r.first_divergence];
    chart.markers.push_back({static_cast<double>(*r.first_divergence),
                             fmt::format("first divergence: #{} {} ({})", *r.first_divergence, display_module(*e.a),
                                         status_name(e.status)),
                             "#c00"});
  }
  return chart;
}

std::string entries_table(const CompareResult& r) {
  using html::Align;
  std::vector<html::Row> rows;
  for (size_t i = 0; i < r.entries.size(); ++i) {
    const EntryResult& e = r.entries[i];
    const PairMetrics* m = e.metrics ? &*e.metrics : nullptr;
    auto f = [&](double v) { return m ? fmt::format("{:.4g}", v) : std::string("-"); };
    auto noise = [&](double v) { return e.noise.assessed ? fmt::format("{:.3g}", v) : std::string("-"); };
    rows.push_back({{std::to_string(i), e.a->key, std::string(status_name(e.status)), f(m ? m->cosine : 0),
                     f(m ? m->max_abs_err : 0), f(m ? m->max_rel_err : 0), f(m ? m->rel_l2_err : 0),
                     noise(e.noise.floor), noise(e.noise.ratio), e.msprobe_result, e.message},
                    status_class(e.status)});
  }
  return html::table({{"#", Align::kNumber},
                      {"key", Align::kText},
                      {"status", Align::kText},
                      {"cosine", Align::kNumber},
                      {"max abs err", Align::kNumber},
                      {"max rel err", Align::kNumber},
                      {"rel L2 err", Align::kNumber},
                      {"noise floor", Align::kNumber},
                      {"error / floor (x)", Align::kNumber},
                      {"msprobe", Align::kText},
                      {"message", Align::kText}},
                     rows);
}

std::string unmatched_table(const char* heading, const std::vector<const DumpEntry*>& entries) {
  using html::Align;
  std::string out = fmt::format("<h3>{} ({})</h3>", heading, entries.size());
  if (entries.empty()) return out + "<p>none</p>";
  std::vector<html::Row> rows;
  for (const DumpEntry* e : entries)
    rows.push_back({{e->key, display_module(*e), e->type, e->dtype,
                     e->has_shape ? fmt::format("[{}]", fmt::join(e->shape, ", ")) : std::string("-")},
                    "unmatched"});
  return out + html::table({{"key", Align::kText},
                            {"module", Align::kText},
                            {"type", Align::kText},
                            {"dtype", Align::kText},
                            {"shape", Align::kText}},
                           rows);
}
}  // namespace

std::string render_dump_html(const Dump& a, const Dump& b, const CompareResult& r) {
  std::string body;
  body += fmt::format("<p>A: <code>{}</code> ({}) &nbsp; B (reference): <code>{}</code> ({})</p>", html::escape(a.path),
                      html::escape(a.format), html::escape(b.path), html::escape(b.format));
  body += fmt::format("<p>{} compared: {} pass, {} warn, {} fail, {} error, {} skipped; unmatched {} in A, {} in B.</p>",
                      r.entries.size(), r.count(Status::kPass), r.count(Status::kWarn), r.count(Status::kFail),
                      r.count(Status::kError), r.count(Status::kSkipped), r.unmatched_a.size(), r.unmatched_b.size());
  auto note = [&](const char* label, const std::optional<size_t>& i) {
    if (i)
      body += fmt::format("<p>{}: #{} <code>{}</code></p>", label, *i, html::escape(r.entries[*i].a->key));
  };
  if (r.suspect) {
    const EntryResult& e = r.entries[*r.suspect];
    body += fmt::format("<p><strong>Suspect</strong>: #{} <code>{}</code> ({}): error {:.3g} is {:.1f}x its noise floor "
                        "{:.3g} (inputs' error {:.3g})</p>",
                        *r.suspect, html::escape(e.a->key), phase_name(e.noise.phase), e.noise.error, e.noise.ratio,
                        e.noise.floor, e.noise.input_error);
  } else {
    body += fmt::format("<p>Suspect: none (no module's error exceeds its noise floor by more than {:g}x)</p>",
                        r.clear_factor);
  }
  note("First divergence", r.first_divergence);
  note("First nan/inf in A", r.first_nonfinite_a);
  note("First nan/inf in B", r.first_nonfinite_b);
  if (r.masks_skipped_a || r.masks_skipped_b)
    body += fmt::format("<p>Masks passed over when looking for the first nan/inf (-inf or the dtype's lowest value by "
                        "construction): {} in A, {} in B</p>", r.masks_skipped_a, r.masks_skipped_b);
  note("Reference first leaves fp16's range", r.first_ref_beyond_fp16);
  if (r.largest_jump)
    body += fmt::format("<p>Largest error jump: #{} <code>{}</code> ({:.1f}x the largest error before it, {:.3g})</p>",
                        r.largest_jump->index, html::escape(r.entries[r.largest_jump->index].a->key),
                        r.largest_jump->factor, r.largest_jump->baseline);
  body += html::svg_line_chart(error_chart(r));
  body += "<h2>Entries</h2>" + entries_table(r);
  body += "<h2>Unmatched entries</h2>";
  body += unmatched_table("Only in A (no entry of B matched)", r.unmatched_a);
  body += unmatched_table("Only in B (no entry of A matched)", r.unmatched_b);
  return html::page("banjia compare", body);
}

}  // namespace banjia::compare
