// `banjia compare A B`'s entry point: the verb's options as the CLI layer (cli/verbs_compare.cpp) parses them.
#pragma once
#include <cstddef>
#include <string>

#include "common/output_options.h"

namespace banjia::compare {

struct DumpCompareOptions {
  std::string a, b;  // the dump under test and the reference
  size_t top = 10;   // entries in the text report's worst-N table
  unsigned threads = 0;  // 0: all cores
};

// Loads and compares both dumps, writes the report (and --html); returns the process exit code: an
// entry that fails or cannot be compared is an error, one that warns a warning (see --fail-on).
int run_compare(const DumpCompareOptions& options, const OutputOptions& out);

}  // namespace banjia::compare
