// `banjia scan` engine: walks paths, classifies files, runs the scanner for each kind in parallel and
// collects findings in a stable order. The CLI (command.cpp) and `migrate` both build on it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "common/diagnostic.h"
#include "common/file_walk.h"
#include "scan/rule_catalog.h"
#include "scan/tree_flow.h"

namespace banjia::scan {

enum class FileKind { python, shell, cuda_source, dependency_list, other };
std::string_view to_string(FileKind k);
// Classifies a file by its name (no directory): .py/.pyi, .sh/.bash, .cu/.cuh/.cpp/.cc/.cxx/.h/.hpp,
// requirements*.txt, pyproject.toml.
FileKind classify_file(std::string_view file_name);

// The most bytes read from one source file (scan and migrate). Real sources are far smaller; the cap
// keeps a device such as /dev/zero, a FIFO or a huge generated file from being read into memory
// whole: such a file becomes an input-error finding.
inline constexpr size_t kMaxSourceFileBytes = size_t{64} << 20;

struct ScanOptions {
  std::vector<std::string> exclude_globs;
  std::vector<std::string> select;   // rule ids or categories to keep (empty: all)
  std::vector<std::string> ignore;   // rule ids or categories to drop
  unsigned threads = 0;              // 0: hardware concurrency
  const RuleCatalog* rules = nullptr;  // default: the builtin catalogue
  std::function<void(size_t done, size_t total)> progress;  // called from worker threads
};

struct FileStats {
  size_t python = 0, shell = 0, cuda_source = 0, dependency_list = 0;
  size_t bytes = 0;
  size_t total() const { return python + shell + cuda_source + dependency_list; }
};

struct ScanResult {
  std::vector<Finding> findings;   // sorted by file, line, column
  FileStats files;
  size_t file_errors = 0;          // files that could not be read or parsed (each also a finding)
};

ScanResult scan_paths(const std::vector<std::string>& paths, const ScanOptions& options);

// Scans one file's bytes as `kind`; appends findings. Never throws for bad content: problems become
// an `input-error` finding.
void scan_buffer(std::string_view bytes, FileKind kind, const std::string& display, const RuleCatalog& rules,
                 std::vector<Finding>& out,
                 const TreeContext* tree = nullptr);

// The finding reported for a file that cannot be read or parsed.
Finding input_error_finding(const std::string& file, const std::string& problem, int line = 0, int column = 0);

}  // namespace banjia::scan
