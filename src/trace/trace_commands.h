// Entry points behind the CLI subcommands (kept out of command.cpp so tests can call them).
#pragma once
#include <string>
#include <vector>

#include "cli/output_options.h"

namespace banjia::trace {

struct SummaryArgs {
  std::vector<std::string> inputs;
  size_t top = 10;
  std::string csv_table = "steps";
  std::string html;
  unsigned jobs = 0;
};

struct CompareArgs {
  std::string baseline, target, map_file, html;
  size_t top = 20;
};

struct OpsArgs {
  std::vector<std::string> inputs;
  std::string torch_npu;  // data/ops version; empty: the newest
  std::string html;
  size_t top = 40;
  unsigned jobs = 0;
};

int run_summary(const SummaryArgs& args, const OutputOptions& out);
int run_compare(const CompareArgs& args, const OutputOptions& out);
int run_ops(const OpsArgs& args, const OutputOptions& out);

}  // namespace banjia::trace
