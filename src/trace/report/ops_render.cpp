#include "trace/report/ops_render.h"

#include <fmt/format.h>

#include "common/html.h"
#include "common/report.h"
#include "common/safe_paths.h"
#include "trace/model/trace_model.h"

namespace banjia::trace {

namespace {

template <class C>
std::string joined(const C& items, std::string_view sep) {
  std::string out;
  for (auto& s : items) out += (out.empty() ? "" : std::string(sep)) + std::string(s);
  return out;
}

template <class C>
void string_array(JsonWriter& w, std::string_view key, const C& items) {
  w.key(key).begin_array();
  for (auto& s : items) w.value(std::string_view(s));
  w.end_array();
}

std::string note_of(const OpCoverageRow& r) {
  switch (r.status) {
    case ops::OpStatus::inside_npu_kernel: return "inside " + joined(r.inside, ", ");
    case ops::OpStatus::dtype_unsupported: return r.limit_api + " documents only " + joined(r.limit_dtypes, ",");
    case ops::OpStatus::composite: return "torch implements it from other ops for every backend";
    case ops::OpStatus::fallback:
      return r.inside.empty() ? "runs on the CPU through torch_npu's fallback" : "on the CPU inside " + joined(r.inside, ", ");
    case ops::OpStatus::no_npu_kernel: return r.inside.empty() ? "no kernel and no fallback" : "fails inside " + joined(r.inside, ", ");
    case ops::OpStatus::unknown: return "no kernel, but may not be called on an NPU (see docs/ops.md)";
    case ops::OpStatus::npu_kernel:
      return r.overloads.size() == 1 ? r.overloads.front() : fmt::format("{} overloads, not pinned", r.overloads.size());
  }
  return {};
}
}  // namespace

std::string ops_headline(const OpsCoverage& c) {
  return fmt::format("{} ops ({:.1f} % of step time) will not run as NPU kernels", c.ops_off_npu(),
                     100.0 * c.share(c.self_ns_off_npu()));
}

std::string ops_text(const OpsCoverage& c, const ops::OpsDataSet& data, size_t top) {
  std::string out = fmt::format("{}\n  torch_npu {} (torch line {}); {} {:.3f} ms{}\n  {}\n", printable(c.file), data.version,
                                data.torch_line, c.time_basis == "steps" ? fmt::format("{} steps,", c.steps) : "trace span,",
                                static_cast<double>(c.step_ns) / 1e6,
                                c.input_types ? "" : "; no \"Input type\" lists: dtypes not checked", ops_headline(c));
  out += fmt::format("  {:<36} {:<18} {:>7} {:>11} {:>7}  {:<22} {}\n", "op", "status", "calls", "self ms", "share",
                     "dtypes", "note");
  size_t shown = 0;
  for (auto& r : c.rows) {
    if (top > 0 && shown++ == top) {
      out += fmt::format("  ... {} more rows (--top 0 shows all)\n", c.rows.size() - top);
      break;
    }
    out += fmt::format("  {:<36} {:<18} {:>7} {:>11.3f} {:>6.2f}%  {:<22} {}\n", r.name, ops::status_name(r.status), r.calls,
                       static_cast<double>(r.self_ns) / 1e6, 100.0 * c.share(r.self_ns), joined(r.dtypes, ","),
                       note_of(r));
  }
  return out;
}

void write_ops_json(JsonWriter& w, const OpsCoverage& c) {
  w.begin_object();
  w.field("file", c.file);
  w.field("time_basis", c.time_basis);
  w.field("steps", static_cast<uint64_t>(c.steps));
  w.field("step_time_us", static_cast<double>(c.step_ns) / kNsPerUs);
  w.field("input_types", c.input_types);
  w.field("ops_off_npu", static_cast<uint64_t>(c.ops_off_npu()));
  w.field("share_off_npu", c.share(c.self_ns_off_npu()));
  w.field("headline", ops_headline(c));
  w.key("ops").begin_array();
  for (auto& r : c.rows) {
    w.begin_object();
    w.field("name", r.name);
    w.field("status", ops::status_name(r.status));
    w.field("calls", static_cast<uint64_t>(r.calls));
    w.field("own_calls", static_cast<uint64_t>(r.own_calls));
    w.field("self_us", static_cast<double>(r.self_ns) / kNsPerUs);
    w.field("share", c.share(r.self_ns));
    string_array(w, "dtypes", r.dtypes);
    string_array(w, "overloads", r.overloads);
    w.key("overload");
    if (r.overloads.size() == 1) w.value(r.overloads.front());
    else w.null();
    string_array(w, "inside", r.inside);
    w.key("dtype_limit_api");
    if (r.limit_api.empty()) w.null();
    else w.value(r.limit_api);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

std::string ops_csv(const std::vector<OpsCoverage>& all) {
  std::string out = "file,op,status,calls,self_us,share,dtypes,overloads,inside,dtype_limit_api\n";
  for (auto& c : all)
    for (auto& r : c.rows)
      out += fmt::format("{},{},{},{},{:.3f},{:.6f},{},{},{},{}\n", csv_field(c.file), csv_field(r.name),
                         ops::status_name(r.status), r.calls, static_cast<double>(r.self_ns) / kNsPerUs, c.share(r.self_ns),
                         csv_field(joined(r.dtypes, " ")), csv_field(joined(r.overloads, " ")),
                         csv_field(joined(r.inside, " ")), csv_field(r.limit_api));
  return out;
}

std::string ops_html(const std::vector<OpsCoverage>& all, const ops::OpsDataSet& data) {
  std::string body = "<p>" + html::escape(fmt::format("torch_npu {} (torch line {}). Facts read from torch_npu and "
                                                      "op-plugin sources, not observed on hardware.",
                                                      data.version, data.torch_line)) + "</p>";
  constexpr ops::OpStatus kOrder[] = {ops::OpStatus::npu_kernel, ops::OpStatus::inside_npu_kernel, ops::OpStatus::composite,
                                 ops::OpStatus::unknown,    ops::OpStatus::dtype_unsupported, ops::OpStatus::fallback,
                                 ops::OpStatus::no_npu_kernel};
  for (auto& c : all) {
    body += "<h2>" + html::escape(c.file) + "</h2><p><strong>" + html::escape(ops_headline(c)) + "</strong></p>";
    html::BarChart chart;
    chart.title = "Self time by status (% of step time)";
    chart.series = {"share"};
    chart.unit = "%";
    for (ops::OpStatus s : kOrder) {
      int64_t ns = 0;
      for (auto& r : c.rows)
        if (r.status == s) ns += r.self_ns;
      chart.bars.push_back({std::string(ops::status_name(s)), {100.0 * c.share(ns)}});
    }
    body += html::svg_bar_chart(chart);
    std::vector<html::Row> rows;
    for (auto& r : c.rows)
      rows.push_back({{r.name, std::string(ops::status_name(r.status)), std::to_string(r.calls),
                       fmt::format("{:.3f}", static_cast<double>(r.self_ns) / 1e6), fmt::format("{:.2f}", 100.0 * c.share(r.self_ns)),
                       joined(r.dtypes, ", "), note_of(r)},
                      ""});
    using html::Align;
    body += html::table({{"op", Align::kText}, {"status", Align::kText}, {"calls (count)", Align::kNumber},
                         {"self (ms)", Align::kNumber}, {"share (% of step time)", Align::kNumber},
                         {"dtypes", Align::kText}, {"note", Align::kText}},
                        rows);
  }
  return html::page("banjia trace ops", body);
}

}  // namespace banjia::trace
