#include "scan/scan_summary.h"

#include <fmt/format.h>

#include "rules/safety/rewrite_safety.h"

namespace banjia::scan {

double ScanSummary::automatic_percent() const {
  auto it = by_fix.find("automatic");
  size_t automatic = it == by_fix.end() ? 0 : it->second;
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(automatic) / static_cast<double>(total);
}

ScanSummary summarise(const ScanResult& r) {
  ScanSummary s;
  s.files = r.files;
  s.file_errors = r.file_errors;
  s.files_skipped = r.files_skipped;
  for (const auto& f : r.findings) {
    if (f.category == "input") continue;  // a file's status, not a use
    if (rules::is_gpu_path_rule(f.rule)) {
      s.npu_aware_files.push_back(f.file);
      continue;
    }
    ++s.total;
    ++s.by_category[f.category];
    ++s.by_fix[std::string(to_string(f.fix))];
    ++s.by_rule[f.rule];
    ++s.by_severity[std::string(to_string(f.severity))];
  }
  return s;
}

namespace {
std::string join_counts(const std::map<std::string, size_t>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, v);
  return out.empty() ? "none" : out;
}
}  // namespace

std::string summary_text(const ScanSummary& s, const std::string& title) {
  std::string out = fmt::format(
      "{}: {} files scanned ({} Python, {} shell, {} C++/CUDA, {} dependency lists, {} configs), {:.1f} KiB\n", title,
      s.files.total(), s.files.python, s.files.shell, s.files.cuda_source, s.files.dependency_list, s.files.config,
      static_cast<double>(s.files.bytes) / 1024.0);
  if (s.file_errors) out += fmt::format("  files not scanned: {} (see input-error findings)\n", s.file_errors);
  if (s.files_skipped) out += fmt::format("  files skipped: {} (see input-skipped findings)\n", s.files_skipped);
  out += fmt::format("  CUDA-specific uses: {}\n", s.total);
  out += fmt::format("  by fix kind:  {}\n", join_counts(s.by_fix));
  out += fmt::format("  by category:  {}\n", join_counts(s.by_category));
  out += fmt::format("  automatic:    {:.1f}% of uses migrate without hand work\n", s.automatic_percent());
  if (!s.npu_aware_files.empty()) {
    out += fmt::format("  already support the NPU (CUDA branches kept as the GPU path): {} files\n", s.npu_aware_files.size());
    for (const auto& f : s.npu_aware_files) out += fmt::format("    {}\n", f);
  }
  if (!s.by_rule.empty()) {
    out += "  by rule:\n";
    for (const auto& [k, v] : s.by_rule) out += fmt::format("    {:<28} {:>6}\n", k, v);
  }
  return out;
}

void summary_json(JsonWriter& w, const ScanSummary& s) {
  w.key("files").begin_object();
  w.field("python", static_cast<uint64_t>(s.files.python));
  w.field("shell", static_cast<uint64_t>(s.files.shell));
  w.field("cuda_source", static_cast<uint64_t>(s.files.cuda_source));
  w.field("dependency_list", static_cast<uint64_t>(s.files.dependency_list));
  w.field("config", static_cast<uint64_t>(s.files.config));
  w.field("bytes", static_cast<uint64_t>(s.files.bytes));
  w.field("errors", static_cast<uint64_t>(s.file_errors));
  w.field("skipped", static_cast<uint64_t>(s.files_skipped));
  w.end_object();
  w.field("total", static_cast<uint64_t>(s.total));
  w.field("automatic_percent", s.automatic_percent());
  auto counts = [&](std::string_view key, const std::map<std::string, size_t>& m) {
    w.key(key).begin_object();
    for (const auto& [k, v] : m) w.field(k, static_cast<uint64_t>(v));
    w.end_object();
  };
  counts("by_fix", s.by_fix);
  counts("by_category", s.by_category);
  counts("by_severity", s.by_severity);
  counts("by_rule", s.by_rule);
  w.key("npu_aware_files").begin_array();
  for (const auto& f : s.npu_aware_files) w.value(f);
  w.end_array();
}

}  // namespace banjia::scan
