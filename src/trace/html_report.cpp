#include "trace/html_report.h"

#include <fmt/format.h>

#include "common/html.h"

namespace banjia::trace {

namespace {
html::BarChart breakdown_chart(const Summary& s) {
  html::BarChart c;
  c.title = "Device time per step";
  c.series = {"compute", "communication", "memcpy/memset", "idle"};
  c.unit = "ms";
  c.stacked = true;
  auto add = [&](const StepStats& st) {
    const Breakdown& b = st.breakdown;
    c.bars.push_back({st.name, {b.compute_us / 1000, b.comm_us / 1000, b.memory_us / 1000, b.idle_us / 1000}});
  };
  for (auto& st : s.steps) add(st);
  if (s.steps.empty()) add(s.overall);
  return c;
}

html::BarChart ops_chart(const Summary& s) {
  html::BarChart c;
  c.title = "Top ops by self time";
  c.series = {"self", "total"};
  c.unit = "ms";
  for (auto& r : s.top_ops_self) c.bars.push_back({r.name, {r.self_us / 1000, r.total_us / 1000}});
  return c;
}

std::string findings_table(const Summary& s) {
  if (s.findings.empty()) return "<p>No advisor rule fired.</p>";
  std::vector<std::vector<std::string>> rows;
  for (auto& f : s.findings)
    rows.push_back({f.rule, f.message, f.evidence, f.est_saving_us ? fmt::format("{:.1f}", *f.est_saving_us) : "", f.suggestion,
                    f.source});
  return html::table({"rule", "message", "evidence", "est. saving (us)", "advice", "source"}, rows);
}
}  // namespace

std::string summary_html(const std::vector<Summary>& all, const ClusterView* cluster) {
  std::string body;
  if (cluster) {
    html::BarChart c;
    c.title = "Per-rank mean step time";
    c.series = {"compute", "communication", "memcpy/memset", "idle"};
    c.unit = "ms";
    c.stacked = true;
    for (size_t i = 0; i < cluster->ranks.size(); ++i) {
      auto& r = cluster->ranks[i];
      c.bars.push_back({fmt::format("rank {}", i), {r.compute_us / 1000, r.comm_us / 1000, r.memory_us / 1000, r.idle_us / 1000}});
    }
    body += "<h2>Cluster</h2>" + html::svg_bar_chart(c);
    body += fmt::format("<p>Slow rank (max-min)/mean &gt; 5%: {}</p>", cluster->slow_rank ? "yes" : "no");
  }
  for (auto& s : all) {
    body += "<h2>" + html::escape(s.file) + "</h2>";
    body += html::svg_bar_chart(breakdown_chart(s));
    if (!s.top_ops_self.empty()) body += html::svg_bar_chart(ops_chart(s));
    std::vector<std::vector<std::string>> k;
    for (auto& r : s.top_kernels)
      k.push_back({r.name, r.kernel_class, std::to_string(r.count), fmt::format("{:.1f}", r.total_us)});
    if (!k.empty()) body += "<h3>Top kernels</h3>" + html::table({"kernel", "class", "count", "total us"}, k);
    body += "<h3>Findings</h3>" + findings_table(s);
    if (!s.skipped_rules.empty()) {
      std::vector<std::vector<std::string>> rows;
      for (auto& r : s.skipped_rules) rows.push_back({r.rule, r.reason});
      body += "<h3>Rules not run on this trace</h3>" + html::table({"rule", "reason"}, rows);
    }
  }
  return html::page("banjia trace summary", body);
}

std::string comparison_html(const Comparison& c) {
  html::BarChart steps;
  steps.title = "Per step: baseline vs target";
  steps.series = {"baseline", "target"};
  steps.unit = "ms/step";
  for (auto& r : c.metrics) steps.bars.push_back({r.name, {r.base_us / 1000, r.target_us / 1000}});
  html::BarChart ops;
  ops.title = "Op types with the largest regression (mean per step)";
  ops.series = {"baseline", "target"};
  ops.unit = "ms/step";
  for (size_t i = 0; i < c.ops.size() && i < 15; ++i)
    ops.bars.push_back({c.ops[i].name, {c.ops[i].base_us / 1000, c.ops[i].target_us / 1000}});
  std::string body = fmt::format("<p>baseline: {} ({} steps)<br>target: {} ({} steps)<br>every value is a mean per step</p>",
                                 html::escape(c.baseline), c.baseline_steps, html::escape(c.target), c.target_steps);
  body += html::svg_bar_chart(steps) + html::svg_bar_chart(ops);
  return html::page("banjia trace compare", body);
}

}  // namespace banjia::trace
