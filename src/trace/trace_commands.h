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

int run_summary(const SummaryArgs& args, const OutputOptions& out);
int run_compare(const CompareArgs& args, const OutputOptions& out);

}  // namespace banjia::trace
