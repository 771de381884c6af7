// Self-contained HTML reports with inline SVG charts: no scripts from elsewhere, no external assets.
// Used by `trace`, `compare` and `bench` for --html.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/html_escape.h"

namespace banjia::html {

// A complete page: <!DOCTYPE html>, inline CSS, a heading and `body_html`. The CSS gives rows of class
// status-pass, status-warn, status-fail, status-error and status-skipped their colours, right-aligns
// cells of class num, and lists CJK fonts after the Latin ones so Chinese text never falls back to boxes.
std::string page(std::string_view title, std::string_view body_html);

// <table> from a header row and data rows (cells are escaped): the first column left-aligned as text,
// the others right-aligned as numbers.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

enum class Align { kText, kNumber };  // text left-aligned, numbers right-aligned

struct Column {
  std::string header;  // with its unit where it has one: "wall (ms)"
  Align align = Align::kText;
};

struct Row {
  std::vector<std::string> cells;
  std::string css_class;  // on the <tr>, e.g. "status-fail"; empty for none
};

// <table> with per-column alignment and per-row classes (cells are escaped).
std::string table(const std::vector<Column>& columns, const std::vector<Row>& rows);

struct Bar {
  std::string label;
  std::vector<double> values;  // one per series (stacked when stacked=true, grouped otherwise)
};

struct BarChart {
  std::string title;
  std::vector<std::string> series;  // legend names, one per value in each Bar
  std::vector<Bar> bars;
  std::string unit;                 // on the value axis and after every value, e.g. "ms"
  bool stacked = false;
};

// Horizontal bar chart as an inline <svg> element, with a value axis of round ticks.
std::string svg_bar_chart(const BarChart& chart);

struct LineSeries {
  std::string name;
  std::vector<double> y;  // x is the index; non-finite values are drawn as gaps
};

// A vertical line across the plot at an x index, labelled at its top.
struct ChartMarker {
  double x = 0;
  std::string label;
  std::string color = "#c00";
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;  // decade ticks; otherwise round 1/2/5 x 10^k ticks
  std::vector<LineSeries> series;
  std::vector<std::string> x_names;  // optional name per x index, written under the x ticks that have room
  std::vector<ChartMarker> markers;
};

// Line chart (e.g. per-layer error, per-iteration time) as an inline <svg> element: x ticks at round
// indices, y ticks at round values, markers drawn over the series.
std::string svg_line_chart(const LineChart& chart);

}  // namespace banjia::html
