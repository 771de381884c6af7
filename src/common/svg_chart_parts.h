// Pieces every inline-SVG chart of the HTML reports shares: round axis ticks, a legend that wraps
// instead of overlapping, the palette and a fluid <svg> root. Companion of common/html.h.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace banjia::html {

struct AxisTick {
  double value;
  std::string label;
};

// An axis range and the ticks on it; the range reaches the first and last tick.
struct Axis {
  double lo = 0, hi = 1;
  std::vector<AxisTick> ticks;
};

// Ticks a step of 1, 2 or 5 x 10^k apart, covering [lo, hi] with at most about max_ticks ticks.
Axis nice_linear_axis(double lo, double hi, int max_ticks = 6);

// Ticks at powers of ten (every decade, or every n-th when there are many) covering [lo, hi], both > 0.
// lo and hi of the result are in data units (powers of ten), not exponents.
Axis decade_axis(double lo, double hi, int max_ticks = 8);

// A tick value as short text: "0", "0.002", "500", "2e-5", "1.5e6" (no float noise such as 0.30000000000000004).
std::string format_round(double v);

// Width in pixels a text takes at font_size (CJK and other wide characters count a full em): enough to
// lay out legends and labels without measuring in a browser.
double estimated_text_width(std::string_view text, double font_size);

// The text cut to fit max_width at font_size, with "…" when cut.
std::string fit_text(std::string_view text, double font_size, double max_width);

const char* series_color(size_t i);

struct Legend {
  std::string svg;
  double height = 0;  // of the rows it took
};

// One swatch and name per series, left to right from x, wrapping onto a new row before max_x.
Legend legend(const std::vector<std::string>& names, double x, double y, double max_x);

// The <svg> opening tag: a viewBox of width x height and width 100%, so a chart shrinks with the page
// (the page's CSS caps it at its natural width).
std::string svg_open(double width, double height, std::string_view title);

}  // namespace banjia::html
