#include "trace/report/html_report.h"

#include "trace/report/communication_render.h"

#include <fmt/format.h>

#include "common/html.h"

// Every number carries its unit in its column header ("wall (ms)") or chart axis; text columns are
// left-aligned and number columns right-aligned (html::Column).
namespace banjia::trace {

namespace {
using html::Align;

std::string ms(double us) { return fmt::format("{:.3f}", us / 1000); }
std::string megabytes(int64_t bytes) { return fmt::format("{:.2f}", static_cast<double>(bytes) / 1e6); }
std::string percent(double part, double whole) { return whole > 0 ? fmt::format("{:.1f}", 100 * part / whole) : "-"; }

std::string steps_table(const Summary& s) {
  std::vector<html::Row> rows;
  auto add = [&](const StepStats& st) {
    const Breakdown& b = st.breakdown;
    rows.push_back({{st.name, ms(b.wall_us), ms(b.compute_us), ms(b.comm_us), ms(b.memory_us), ms(b.idle_us),
                     percent(b.idle_us, b.wall_us), std::to_string(st.kernels), std::to_string(st.sync_points),
                     megabytes(st.h2d_bytes), megabytes(st.d2h_bytes)},
                    ""});
  };
  for (auto& st : s.steps) add(st);
  if (s.steps.empty()) add(s.overall);
  return html::table({{"step", Align::kText},
                      {"wall (ms)", Align::kNumber},
                      {"compute (ms)", Align::kNumber},
                      {"communication (ms)", Align::kNumber},
                      {"memcpy/memset (ms)", Align::kNumber},
                      {"idle (ms)", Align::kNumber},
                      {"idle (% of wall)", Align::kNumber},
                      {"kernels (count)", Align::kNumber},
                      {"sync points (count)", Align::kNumber},
                      {"host to device (MB)", Align::kNumber},
                      {"device to host (MB)", Align::kNumber}},
                     rows);
}

// Baseline vs target rows with their ratio.
std::string compare_table(const char* what, const std::vector<CompareRow>& rows, size_t limit) {
  std::vector<html::Row> out;
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const CompareRow& r = rows[i];
    auto q = r.ratio();
    out.push_back({{r.name, ms(r.base_us), ms(r.target_us), ms(r.delta_us()), q ? fmt::format("{:.2f}", *q) : "-"}, ""});
  }
  return html::table({{what, Align::kText},
                      {"baseline (ms/step)", Align::kNumber},
                      {"target (ms/step)", Align::kNumber},
                      {"target − baseline (ms/step)", Align::kNumber},
                      {"ratio (target / baseline, ×)", Align::kNumber}},
                     out);
}
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
  std::vector<html::Row> rows;
  for (auto& f : s.findings)
    rows.push_back({{f.rule, f.message, f.evidence, f.est_saving_us ? ms(*f.est_saving_us) : "", f.suggestion, f.source}, ""});
  return html::table({{"rule", Align::kText},
                      {"message", Align::kText},
                      {"evidence", Align::kText},
                      {"est. saving (ms)", Align::kNumber},
                      {"advice", Align::kText},
                      {"source", Align::kText}},
                     rows);
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
      c.bars.push_back({fmt::format("rank {}", rank_of(*cluster, i)), {r.compute_us / 1000, r.comm_us / 1000, r.memory_us / 1000, r.idle_us / 1000}});
    }
    body += "<h2>Cluster</h2>" + html::svg_bar_chart(c);
    std::vector<html::Row> ranks;
    for (size_t i = 0; i < cluster->ranks.size(); ++i) {
      auto& r = cluster->ranks[i];
      ranks.push_back({{std::to_string(rank_of(*cluster, i)), r.file, ms(r.step_us), ms(r.compute_us), ms(r.comm_us), ms(r.memory_us),
                        ms(r.idle_us)},
                       ""});
    }
    body += html::table({{"rank", Align::kNumber},
                         {"file", Align::kText},
                         {"step (ms, mean)", Align::kNumber},
                         {"compute (ms)", Align::kNumber},
                         {"communication (ms)", Align::kNumber},
                         {"memcpy/memset (ms)", Align::kNumber},
                         {"idle (ms)", Align::kNumber}},
                        ranks);
    std::vector<html::Row> gaps;
    for (auto& m : cluster->metrics)
      gaps.push_back({{m.metric, fmt::format("{:.1f}", 100 * m.gap_ratio), std::to_string(rank_of(*cluster, m.slowest)),
                       m.flagged ? "yes" : "no"},
                      m.flagged ? "status-warn" : ""});
    body += html::table({{"metric", Align::kText},
                         {"(max − min) / mean (%)", Align::kNumber},
                         {"slowest rank", Align::kNumber},
                         {"over 5 %", Align::kText}},
                        gaps);
    body += fmt::format("<p>Slow rank ((max − min) / mean &gt; 5 %): {}</p>", cluster->slow_rank ? "yes" : "no");
    if (cluster->culprit)
      body += fmt::format("<p><strong>Culprit</strong>: rank {}: its own work (compute + memory) is {} ms per step "
                          "against the median rank's {} ms; the others wait for it.</p>",
                          rank_of(*cluster, cluster->culprit->index), ms(cluster->culprit->own_us), ms(cluster->culprit->median_own_us));
    if (!cluster->waiting.empty()) {
      std::string list;
      for (const WaitingRank& v : cluster->waiting)
        list += fmt::format("{}rank {} (+{} ms)", list.empty() ? "" : ", ", rank_of(*cluster, v.index), ms(v.excess_us));
      body += "<p>Waiting (communication + idle above the least-waiting rank, per step): " + html::escape(list) + "</p>";
    }
    body += communication_html(*cluster);
  }
  for (auto& s : all) {
    body += "<h2>" + html::escape(s.file) + "</h2>";
    body += html::svg_bar_chart(breakdown_chart(s)) + steps_table(s);
    if (!s.top_ops_self.empty()) {
      std::vector<html::Row> ops;
      for (auto& r : s.top_ops_self) ops.push_back({{r.name, std::to_string(r.count), ms(r.self_us), ms(r.total_us)}, ""});
      body += html::svg_bar_chart(ops_chart(s)) + html::table({{"op", Align::kText},
                                                               {"calls (count)", Align::kNumber},
                                                               {"self (ms)", Align::kNumber},
                                                               {"total (ms)", Align::kNumber}},
                                                              ops);
    }
    std::vector<html::Row> k;
    for (auto& r : s.top_kernels) k.push_back({{r.name, r.kernel_class, std::to_string(r.count), ms(r.total_us)}, ""});
    if (!k.empty())
      body += "<h3>Top kernels</h3>" + html::table({{"kernel", Align::kText},
                                                    {"class", Align::kText},
                                                    {"calls (count)", Align::kNumber},
                                                    {"total (ms)", Align::kNumber}},
                                                   k);
    body += "<h3>Findings</h3>" + findings_table(s);
    if (!s.skipped_rules.empty()) {
      std::vector<html::Row> rows;
      for (auto& r : s.skipped_rules) rows.push_back({{r.rule, r.reason}, ""});
      body += "<h3>Rules not run on this trace</h3>" + html::table({{"rule", Align::kText}, {"reason", Align::kText}}, rows);
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
  body += html::svg_bar_chart(steps) + compare_table("per step", c.metrics, c.metrics.size());
  body += "<h3>Kernel classes</h3>" + compare_table("kernel class", c.classes, c.classes.size());
  body += html::svg_bar_chart(ops) + compare_table("op type", c.ops, 15);
  return html::page("banjia trace compare", body);
}

}  // namespace banjia::trace
