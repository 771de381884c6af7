// `banjia trace`'s command line: summary (per step breakdown + advisors, cluster view for several
// ranks), compare (baseline vs target) and ops (which aten ops have an NPU kernel).
#include <string>

#include "cli/output_flags.h"
#include "cli/verbs.h"
#include "trace/command.h"

namespace banjia {

void register_trace(CLI::App& verb, int& exit_code) {
  CLI::App* trace = &verb;
  trace->require_subcommand(1);
  const OutputFlags trace_output{.formats = {"text", "json", "csv"}, .default_fail_on = "none", .html = true};

  static trace::TraceSummaryOptions sargs;
  static OutputOptions sout;
  auto* summary = trace->add_subcommand("summary", "Per-step device time breakdown, top ops/kernels, launch and sync statistics, advisor findings");
  summary->add_option("traces", sargs.inputs,
                      "Kineto .json/.json.gz, torch_npu *_ascend_pt or ASCEND_PROFILER_OUTPUT dir, ascend_pytorch_profiler_*.db, or a dir of ranks");
  summary->add_option("--explain", sargs.explain,
                      "Print the documentation page of advisor RULE (Markdown: needs, thresholds, example, source) and exit")
      ->option_text("RULE");
  summary->add_option("--top", sargs.top, "Rows in the top-ops and top-kernels tables")->capture_default_str();
  summary->add_option("--table", sargs.csv_table, "Table written by --format csv: steps, ops, kernels, classes; for a cluster, ranks or links (rank-to-rank traffic)")
      ->check(CLI::IsMember({"steps", "ops", "kernels", "classes", "ranks", "links"}))->capture_default_str();
  summary->add_option("-j,--jobs", sargs.jobs, "Worker threads (default: all cores): several traces are read side by side, one trace is parsed and analysed on all of them");
  add_output_flags(summary, sout, trace_output);
  add_max_input_size_flag(summary);
  summary->footer(
      "Examples:\n"
      "  banjia trace summary run.pt.trace.json.gz\n"
      "  banjia trace summary rank0_ascend_pt --format json -o summary.json\n"
      "  banjia trace summary ranks/ --html cluster.html --fail-on warning\n"
      "  banjia trace summary --explain host-bound   what an advisor finds, on what evidence, and why\n" +
      std::string(kOutputFlagsFooter));
  summary->callback([&exit_code] {
    if (sargs.inputs.empty() && sargs.explain.empty()) throw CLI::RequiredError("traces");
    exit_code = trace::run_summary(sargs, sout);
  });

  static trace::TraceClusterOptions clargs;
  static OutputOptions clout;
  auto* cluster = trace->add_subcommand(
      "cluster", "The cluster view of per-rank summaries made apart (trace summary --format json per rank): the merge step of a Ray or Slurm run");
  cluster->add_option("summaries", clargs.inputs, "Reports of `banjia trace summary --format json`, or directories of them (*.json)")
      ->required();
  cluster->add_option("--table", clargs.csv_table, "Table written by --format csv: ranks, links (rank-to-rank traffic)")
      ->check(CLI::IsMember({"ranks", "links"}))->capture_default_str();
  add_output_flags(cluster, clout, trace_output);
  add_max_input_size_flag(cluster);
  cluster->footer(
      "Examples:\n"
      "  for r in ranks/*; do banjia trace summary \"$r\" -f json -o \"summaries/$(basename \"$r\").json\"; done\n"
      "  banjia trace cluster summaries/ --html cluster.html\n"
      "  python -m banjia.cluster --address auto ranks/*   # the per-rank step as Ray tasks (docs/trace.md)\n" +
      std::string(kOutputFlagsFooter));
  cluster->callback([&exit_code] { exit_code = trace::run_cluster(clargs, clout); });

  static trace::TraceCompareOptions cargs;
  static OutputOptions cout_opts;
  auto* compare = trace->add_subcommand("compare", "Compare two traces (GPU vs NPU, before vs after): steps, breakdown, kernel classes, op types");
  compare->add_option("baseline", cargs.baseline, "Baseline trace (file or profiler dir)")->required();
  compare->add_option("target", cargs.target, "Target trace (file or profiler dir)")->required();
  compare->add_option("--map", cargs.map_file, "TOML or CSV file mapping op names: baseline,target per line")->option_text("FILE");
  compare->add_option("--top", cargs.top, "Op rows shown in text output")->capture_default_str();
  add_output_flags(compare, cout_opts, trace_output);
  add_max_input_size_flag(compare);
  compare->footer(
      "Examples:\n"
      "  banjia trace compare gpu.pt.trace.json.gz rank0_ascend_pt\n"
      "  banjia trace compare before.json.gz after.json.gz --format csv -o ops.csv\n"
      "  banjia trace compare gpu.json.gz npu_dir --map names.csv --html compare.html\n" +
      std::string(kOutputFlagsFooter));
  compare->callback([&exit_code] { exit_code = trace::compare_traces(cargs, cout_opts); });

  static trace::TraceOpsOptions oargs;
  static OutputOptions oout;
  auto* ops = trace->add_subcommand("ops", "Every aten op the profile executed, with calls, self time, dtypes and whether torch_npu has an NPU kernel for it");
  ops->add_option("profiles", oargs.inputs,
                  "Kineto .json/.json.gz (GPU or CPU, e.g. from banjia.profile), torch_npu *_ascend_pt directory or .db")
      ->required();
  ops->add_option("--torch-npu", oargs.torch_npu, "Operator data set (torch_npu branch) to judge against (default: the newest)")
      ->option_text("VERSION");
  ops->add_option("--top", oargs.top, "Rows shown in text output (0: all)")->capture_default_str();
  ops->add_option("-j,--jobs", oargs.jobs, "Worker threads for parsing (default: all cores)");
  add_output_flags(ops, oout, trace_output);
  add_max_input_size_flag(ops);
  ops->footer(
      "Examples:\n"
      "  banjia trace ops prof/run.pt.trace.json\n"
      "  banjia trace ops gpu.json.gz --torch-npu v2.1.0 -f json -o ops.json\n"
      "Data: data/ops (read from torch_npu and op-plugin sources, not observed on hardware); see docs/ops.md\n" +
      std::string(kOutputFlagsFooter));
  ops->callback([&exit_code] { exit_code = trace::run_ops(oargs, oout); });
}

}  // namespace banjia
