// `banjia trace`'s entry points: each subcommand's options as the CLI layer (cli/verbs_trace.cpp)
// parses them. One part per subcommand: command_summary.cpp, command_cluster.cpp, command_compare.cpp,
// command_ops.cpp.
#pragma once
#include <string>
#include <vector>

#include "common/output_options.h"

namespace banjia::trace {

// The HTML report of each goes to OutputOptions::html.
struct TraceSummaryOptions {
  std::vector<std::string> inputs;
  size_t top = 10;
  std::string csv_table = "steps";
  unsigned jobs = 0;
  std::string explain;  // an advisor rule: print its page instead of reading traces
};

// Per-rank reports of `trace summary --format json` (files, or directories of *.json).
struct TraceClusterOptions {
  std::vector<std::string> inputs;
  std::string csv_table = "ranks";
};

struct TraceCompareOptions {
  std::string baseline, target, map_file;
  size_t top = 20;
};

struct TraceOpsOptions {
  std::vector<std::string> inputs;
  std::string torch_npu;  // data/ops version; empty: the newest
  size_t top = 40;
  unsigned jobs = 0;
};

int run_summary(const TraceSummaryOptions& args, const OutputOptions& out);
int run_cluster(const TraceClusterOptions& args, const OutputOptions& out);
int compare_traces(const TraceCompareOptions& args, const OutputOptions& out);
int run_ops(const TraceOpsOptions& args, const OutputOptions& out);

}  // namespace banjia::trace
