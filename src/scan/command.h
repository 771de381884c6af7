// `banjia scan`'s entry point: the verb's options as the CLI layer (cli/verbs_scan.cpp) parses them.
#pragma once
#include <string>
#include <vector>

#include "common/output_options.h"

namespace banjia::scan {

struct ScanVerbOptions {
  std::vector<std::string> paths;
  std::vector<std::string> exclude, select, ignore;
  unsigned threads = 0;  // 0: all cores
  bool list_rules = false;
  std::string explain;  // a rule id: print its documentation page
};

// Scans, prints the rule list or a rule's page; returns the process exit code.
int run_scan(const ScanVerbOptions& options, const OutputOptions& out);

}  // namespace banjia::scan
