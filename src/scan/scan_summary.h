// The statistics block of a scan (like `hipify --print-stats`): files by kind, uses by category and
// fix kind, share that migrates automatically. Text and JSON renderings of the same numbers.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "scan/scanner.h"

namespace banjia::scan {

struct ScanSummary {
  FileStats files;
  size_t file_errors = 0, files_skipped = 0;
  size_t total = 0;  // findings, excluding the files' statuses (input errors, files skipped)
  std::map<std::string, size_t> by_category, by_fix, by_rule, by_severity;
  // Files that already branch on the NPU, whose CUDA branches stay as the GPU path (not counted as uses).
  std::vector<std::string> npu_aware_files;
  double automatic_percent() const;
};

ScanSummary summarise(const ScanResult& result);
std::string summary_text(const ScanSummary& s, const std::string& title);
void summary_json(JsonWriter& w, const ScanSummary& s);

}  // namespace banjia::scan
