// `banjia scan` over a tree: walks paths, classifies files, runs the rules engine (src/rules) on each in
// parallel and collects findings in a stable order.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "common/file_walk.h"
#include "rules/analyses/tree_flow.h"
#include "rules/core/catalog.h"
#include "rules/core/source_files.h"

namespace banjia::scan {

struct ScanOptions {
  std::vector<std::string> exclude_globs;
  std::vector<std::string> select;   // rule ids or categories to keep (empty: all)
  std::vector<std::string> ignore;   // rule ids or categories to drop
  unsigned threads = 0;              // 0: hardware concurrency
  const rules::RuleCatalog* rules = nullptr;  // default: the builtin catalogue
  std::function<void(size_t done, size_t total)> progress;  // called from worker threads
};

struct FileStats {
  size_t python = 0, shell = 0, cuda_source = 0, dependency_list = 0, config = 0;
  size_t bytes = 0;
  size_t total() const { return python + shell + cuda_source + dependency_list + config; }
};

struct ScanResult {
  std::vector<Finding> findings;   // sorted by file, line, column
  FileStats files;
  size_t file_errors = 0;          // files that could not be read or parsed (each also a finding)
  size_t files_skipped = 0;        // configuration files too large to be one (each an input-skipped finding)
};

ScanResult scan_paths(const std::vector<std::string>& paths, const ScanOptions& options);

// Scans one file's bytes as `kind`; appends findings. Never throws for bad content: problems become
// an `input-error` finding.
void scan_buffer(std::string_view bytes, rules::FileKind kind, const std::string& display, const rules::RuleCatalog& rules,
                 std::vector<Finding>& out,
                 const rules::TreeContext* tree = nullptr);

}  // namespace banjia::scan
