// Writers for a Comparison: aligned text table (one column per run, like the article's §6 table),
// Markdown (to paste into a pull request), long-form CSV, JSON, and a self-contained HTML page.
#pragma once
#include <string>
#include <vector>

#include "bench/comparison.h"

namespace banjia::bench {

// The table every human-readable writer shows: header = "metric" + one column per run label.
struct TableModel {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
TableModel comparison_table(const Comparison& c);

// Every warning, each prefixed with its run's label when it belongs to one.
std::vector<std::string> all_warnings(const Comparison& c);

std::string render_text(const Comparison& c);
std::string render_markdown(const Comparison& c);
std::string render_csv(const Comparison& c);
std::string render_json(const Comparison& c);
std::string render_html(const Comparison& c);

}  // namespace banjia::bench
