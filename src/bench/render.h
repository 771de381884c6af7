// Writers for a BenchComparison: aligned text table (one column per run, like the table of
// docs/sources/tuning-article.md, "6. Monitoring"), Markdown (to paste into a pull request), long-form CSV,
// JSON, and a self-contained HTML page.
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
TableModel comparison_table(const BenchComparison& c);

// Every warning, each prefixed with its run's label when it belongs to one.
std::vector<std::string> all_warnings(const BenchComparison& c);

std::string render_bench_text(const BenchComparison& c);
std::string render_bench_markdown(const BenchComparison& c);
std::string render_bench_csv(const BenchComparison& c);
std::string render_bench_json(const BenchComparison& c);
std::string render_bench_html(const BenchComparison& c);

}  // namespace banjia::bench
