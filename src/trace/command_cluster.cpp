// `banjia trace cluster`: the cluster view of per-rank summaries made apart (`trace summary
// --format json` run per rank, as Ray tasks or a Slurm job array), merged as `trace summary DIR`
// would show them.
#include <algorithm>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/report.h"
#include "trace/analysis/cluster.h"
#include "trace/report/cluster_input_json.h"
#include "trace/report/communication_render.h"
#include "trace/report/html_report.h"
#include "trace/report/summary_render.h"
#include "trace/command.h"

namespace banjia::trace {

namespace {
namespace fs = std::filesystem;

// Files as given; a directory stands for the *.json files directly inside it, in name order.
std::vector<fs::path> report_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      out.emplace_back(in);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(in, ec))
      if (e.path().extension() == ".json" && e.is_regular_file(ec)) found.push_back(e.path());
    if (ec) throw InputError(in, "cannot read directory: " + ec.message());
    if (found.empty()) throw InputError(in, "no .json summaries in this directory");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}
}  // namespace

int run_cluster(const TraceClusterOptions& args, const OutputOptions& out) {
  const auto files = report_files(args.inputs);
  std::vector<Summary> all;
  for (const fs::path& f : files) {
    auto traces = read_summary_report_json(read_file(f, static_cast<size_t>(max_inflated_bytes())), f.string());
    all.insert(all.end(), std::make_move_iterator(traces.begin()), std::make_move_iterator(traces.end()));
  }
  std::vector<RankedInput> ranked;
  for (const auto& s : all) ranked.push_back({s.file, s.rank});
  if (all.size() < 2) throw InputError(files.front().string(), "one trace: a cluster needs two or more ranks");
  if (std::string why = why_not_one_job(ranked); !why.empty()) throw InputError("", "not one job: " + why);
  const ClusterView cluster = cluster_view(all);

  Report report;
  report.command = "trace cluster";
  report.files_scanned = static_cast<int>(files.size());
  report.summary_json = [&](JsonWriter& w) {
    w.key("cluster");
    write_cluster_json(w, cluster);
  };
  report.summary_text = cluster_text(cluster);
  report.csv_table = [&] { return args.csv_table == "links" ? links_csv(cluster) : cluster_ranks_csv(cluster); };
  if (!out.html.empty()) write_file_atomic(out.html, summary_html({}, &cluster));
  return out.emit(report);
}

}  // namespace banjia::trace
