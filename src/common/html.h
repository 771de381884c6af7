// Self-contained HTML reports with inline SVG charts: no scripts from elsewhere, no external assets.
// Used by `trace`, `compare` and `bench` for --html.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace banjia::html {

std::string escape(std::string_view s);

// A complete page: <!DOCTYPE html>, inline CSS, a heading and `body_html`.
std::string page(std::string_view title, std::string_view body_html);

// <table> from a header row and data rows (cells are escaped).
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

struct Bar {
  std::string label;
  std::vector<double> values;  // one per series (stacked when stacked=true, grouped otherwise)
};

struct BarChart {
  std::string title;
  std::vector<std::string> series;  // legend names, one per value in each Bar
  std::vector<Bar> bars;
  std::string unit;                 // shown on the axis, e.g. "ms"
  bool stacked = false;
};

// Horizontal bar chart as an inline <svg> element.
std::string svg_bar_chart(const BarChart& chart);

struct LineSeries {
  std::string name;
  std::vector<double> y;  // x is the index; non-finite values are drawn as gaps
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  std::vector<LineSeries> series;
};

// Line chart (e.g. per-layer error, per-iteration time) as an inline <svg> element.
std::string svg_line_chart(const LineChart& chart);

}  // namespace banjia::html
