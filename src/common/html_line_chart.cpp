// html::svg_line_chart (declared in common/html.h). Text elements carry classes (y-tick, x-tick,
// x-name, x-label, marker) so tests and stylesheets can find them.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/html.h"
#include "common/svg_chart_parts.h"

namespace banjia::html {

namespace {
bool drawable(double v, bool log_y) { return std::isfinite(v) && (!log_y || v > 0); }

Axis y_axis(const LineChart& c) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : c.series)
    for (double v : s.y)
      if (drawable(v, c.log_y)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) return c.log_y ? decade_axis(1e-3, 1) : nice_linear_axis(0, 1);
  return c.log_y ? decade_axis(lo, hi) : nice_linear_axis(lo, hi);
}

// Round indices in [0, last]: 0, 5, 10 ... or 0, 20, 40 ...; every index when there are few.
std::vector<size_t> x_ticks(size_t last) {
  if (last == 0) return {0};
  std::vector<size_t> out;
  for (const auto& t : nice_linear_axis(0, static_cast<double>(last), 9).ticks) {
    double r = std::round(t.value);
    if (std::fabs(r - t.value) < 1e-9 && r >= 0 && r <= static_cast<double>(last)) out.push_back(static_cast<size_t>(r));
  }
  return out;
}
}  // namespace

std::string svg_line_chart(const LineChart& c) {
  const double left = 70, right = 30, plot_w = 780, plot_h = 280, width = left + plot_w + right;
  std::vector<std::string> names;
  for (const auto& s : c.series) names.push_back(s.name);
  Legend key = legend(names, left, 24, width - right);
  const double top = 24 + key.height + (c.markers.empty() ? 6 : 20);
  const bool with_names = !c.x_names.empty();
  const double height = top + plot_h + (with_names ? 58 : 44);

  size_t n = 0;
  for (const auto& s : c.series) n = std::max(n, s.y.size());
  const size_t last = n == 0 ? 0 : n - 1;
  const Axis ya = y_axis(c);
  auto ty = [&](double v) { return c.log_y ? std::log10(v) : v; };
  const double lo = ty(ya.lo), hi = ty(ya.hi);
  auto px = [&](double i) { return left + (last == 0 ? plot_w / 2 : i / static_cast<double>(last) * plot_w); };
  auto py = [&](double v) { return top + plot_h - (ty(v) - lo) / (hi - lo) * plot_h; };

  std::string out = svg_open(width, height, c.title);
  out += fmt::format(R"(<text x="4" y="16" font-size="14" font-weight="bold">{}</text>)", escape(c.title));
  out += key.svg;
  for (const auto& t : ya.ticks) {
    double y = py(t.value);
    out += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#eee"/>)", left, y, left + plot_w, y);
    out += fmt::format(R"(<text class="y-tick" x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="end">{}</text>)",
                       left - 4, y + 3, escape(t.label));
  }
  out += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#bbb"/>)", left,
                     top, plot_w, plot_h);
  const std::vector<size_t> xt = x_ticks(last);
  const double spacing = xt.size() > 1 ? px(static_cast<double>(xt[1])) - px(static_cast<double>(xt[0])) : plot_w;
  for (size_t i : xt) {
    double x = px(static_cast<double>(i));
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#999"/>)", x, top + plot_h,
                       top + plot_h + 4);
    out += fmt::format(R"(<text class="x-tick" x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="middle">{}</text>)", x,
                       top + plot_h + 15, i);
    if (with_names && i < c.x_names.size() && spacing >= 40)
      out += fmt::format(R"(<text class="x-name" x="{:.1f}" y="{:.1f}" font-size="9" fill="#555" text-anchor="middle">)"
                         R"(<title>{}</title>{}</text>)",
                         x, top + plot_h + 27, escape(c.x_names[i]), escape(fit_text(c.x_names[i], 9, spacing - 6)));
  }
  out += fmt::format(R"(<text class="x-label" x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="middle">{}</text>)",
                     left + plot_w / 2, height - 8, escape(c.x_label));
  out += fmt::format(R"svg(<text x="12" y="{0:.1f}" font-size="11" transform="rotate(-90 12 {0:.1f})" text-anchor="middle">{1}</text>)svg",
                     top + plot_h / 2, escape(c.y_label));
  for (size_t si = 0; si < c.series.size(); ++si) {
    std::string d;
    bool pen_up = true;
    const auto& s = c.series[si];
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (!drawable(s.y[i], c.log_y)) {
        pen_up = true;
        continue;
      }
      d += fmt::format("{}{:.1f},{:.1f} ", pen_up ? "M" : "L", px(static_cast<double>(i)), py(s.y[i]));
      pen_up = false;
    }
    if (!d.empty())
      out += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", d, series_color(si));
  }
  for (const auto& m : c.markers) {
    double x = px(std::clamp(m.x, 0.0, static_cast<double>(last)));
    bool right_half = x > left + plot_w / 2;
    out += fmt::format(R"(<g class="marker"><line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" )"
                       R"(stroke-width="1.5" stroke-dasharray="5 3"/>)",
                       x, top - 2, top + plot_h, escape(m.color));
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="{}" text-anchor="{}">{}</text></g>)",
                       right_half ? x - 3 : x + 3, top - 5, escape(m.color), right_half ? "end" : "start",
                       escape(fit_text(m.label, 11, plot_w * 0.6)));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace banjia::html
