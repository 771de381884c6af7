// `banjia trace compare`: baseline vs target (GPU vs NPU, before vs after). Op types are joined by
// name through a hash map (O(N+M), no sequence alignment); `--map` renames target ops first.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "trace/summary.h"

namespace banjia::trace {

struct CompareRow {
  std::string name;
  size_t base_count = 0, target_count = 0;
  double base_us = 0, target_us = 0;
  double delta_us() const { return target_us - base_us; }
  std::optional<double> ratio() const {
    return base_us > 0 ? std::optional<double>(target_us / base_us) : std::nullopt;
  }
};

struct Comparison {
  std::string baseline, target;
  std::vector<CompareRow> metrics;  // step wall and breakdown, mean per step
  std::vector<CompareRow> classes;  // kernel class totals
  std::vector<CompareRow> ops;      // per op type, largest regression first
};

// Reads a name map: lines "baseline_name,target_name" (CSV; '#' starts a comment line).
std::map<std::string, std::string> read_name_map(const std::string& path);

Comparison compare_summaries(const Summary& base, const Summary& target,
                             const std::map<std::string, std::string>& target_to_base);

void write_comparison_json(JsonWriter& w, const Comparison& c);
std::string comparison_text(const Comparison& c, size_t top);
std::string comparison_csv(const Comparison& c);

}  // namespace banjia::trace
