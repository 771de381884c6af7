// `banjia trace summary`: reads every input (in parallel), prints per-trace summaries, findings and,
// for several ranks, the cluster view.
#include <fmt/format.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/report.h"
#include "common/thread_pool.h"
#include "trace/analysis/cluster.h"
#include "trace/analysis/summarize.h"
#include "trace/report/communication_render.h"
#include "trace/report/advisor_page.h"
#include "trace/report/html_report.h"
#include "trace/report/summary_render.h"
#include "trace/command.h"
#include "trace/readers/load.h"
#include "trace/model/trace_rules.h"

namespace banjia::trace {

namespace {
std::vector<RuleInfo> rule_infos() {
  std::vector<RuleInfo> out;
  for (auto& r : trace_rules().advisors) out.push_back(RuleInfo{r.id, r.message, r.source, ""});
  return out;
}
}  // namespace

int run_summary(const TraceSummaryOptions& args, const OutputOptions& out) {
  if (!args.explain.empty()) {
    out.write(advisor_page(args.explain));
    return kExitOk;
  }
  auto inputs = expand_inputs(args.inputs);
  std::vector<Summary> all(inputs.size());
  SummaryOptions opt;
  opt.top = args.top;
  // Several traces: one per worker; one trace: all workers parse and analyse it.
  unsigned workers = worker_count(args.jobs);
  opt.threads = std::max<unsigned>(1, workers / static_cast<unsigned>(std::max<size_t>(1, inputs.size())));
  parallel_for(inputs.size(), workers, [&](size_t i) { all[i] = summarize(load(inputs[i], opt.threads), opt); });
  // Several inputs form a cluster only when they are distinct ranks of one job; otherwise each keeps
  // its own summary and the output says why there is no cluster view.
  std::optional<ClusterView> cluster;
  std::string not_a_cluster;
  if (all.size() > 1) {
    std::vector<RankedInput> ranked;
    for (const auto& s : all) ranked.push_back({s.file, s.rank});
    not_a_cluster = why_not_one_job(ranked);
    if (not_a_cluster.empty()) cluster = cluster_view(all);
  }

  Report report;
  report.command = "trace summary";
  report.files_scanned = static_cast<int>(all.size());
  report.rules = rule_infos();
  for (auto& s : all) report.findings.insert(report.findings.end(), s.findings.begin(), s.findings.end());
  report.summary_json = [&](JsonWriter& w) {
    w.key("traces").begin_array();
    for (auto& s : all) write_summary_json(w, s);
    w.end_array();
    if (cluster) {
      w.key("cluster");
      write_cluster_json(w, *cluster);
    }
    if (!not_a_cluster.empty()) w.field("not_a_cluster", not_a_cluster);
  };
  for (auto& s : all) report.summary_text += summary_text(s) + "\n";
  if (cluster) report.summary_text += cluster_text(*cluster);
  if (!not_a_cluster.empty()) report.summary_text += "no cluster view: " + not_a_cluster + "\n";
  report.csv_table = [&] {
    if (args.csv_table == "links") return cluster ? links_csv(*cluster) : links_csv(ClusterView{});
    if (args.csv_table == "ranks") return cluster ? cluster_ranks_csv(*cluster) : cluster_ranks_csv(ClusterView{});
    return summary_csv(all, args.csv_table);
  };
  if (!out.html.empty()) write_file_atomic(out.html, summary_html(all, cluster ? &*cluster : nullptr));
  return out.emit(report);
}

}  // namespace banjia::trace
