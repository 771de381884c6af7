#include "common/svg_distribution.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/html.h"
#include "common/svg_chart_parts.h"

namespace banjia::html {

std::string svg_distribution_chart(const DistributionChart& c) {
  const double left = 200, plot_w = 640, row_h = 46, top = 36;
  std::vector<std::vector<double>> sorted;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : c.series) {
    std::vector<double> v;
    for (double x : s.values)
      if (std::isfinite(x)) v.push_back(x);
    std::sort(v.begin(), v.end());
    if (!v.empty()) {
      lo = std::min(lo, v.front());
      hi = std::max(hi, v.back());
    }
    sorted.push_back(std::move(v));
  }
  if (!std::isfinite(lo)) { lo = 0; hi = 1; }
  if (hi - lo < 1e-12) { lo -= 0.5; hi += 0.5; }
  const double pad = (hi - lo) * 0.02;  // keeps the extreme dots off the frame
  const Axis axis = nice_linear_axis(lo - pad, hi + pad, 6);
  lo = axis.lo;
  hi = axis.hi;
  auto px = [&](double v) { return left + (v - lo) / (hi - lo) * plot_w; };
  const double height = top + row_h * static_cast<double>(c.series.size()) + 44;
  std::string out = svg_open(left + plot_w + 30, height, c.title);
  out += fmt::format(R"(<text x="4" y="16" font-size="14" font-weight="bold">{}</text>)", escape(c.title));
  const double axis_y = top + row_h * static_cast<double>(c.series.size());
  out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#999"/>)", left, axis_y,
                     left + plot_w);
  for (const auto& t : axis.ticks) {
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#eee"/>)", px(t.value), top,
                       axis_y);
    out += fmt::format(R"(<text class="x-tick" x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="middle">{}</text>)",
                       px(t.value), axis_y + 14, escape(t.label));
  }
  out += fmt::format(R"(<text class="x-label" x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="middle">{}</text>)", left + plot_w / 2,
                     axis_y + 32, escape(c.unit));
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& v = sorted[i];
    const double y = top + row_h * static_cast<double>(i), mid = y + row_h / 2;
    const char* col = series_color(i);
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end"><title>{}</title>{}</text>)",
                       left - 8, mid + 4, escape(c.series[i].name), escape(fit_text(c.series[i].name, 11, left - 16)));
    if (v.empty()) continue;
    const auto& s = c.series[i];
    const double q1 = s.q1, med = s.median, q3 = s.q3, flo = s.fence_low, fhi = s.fence_high;
    auto in_lo = std::find_if(v.begin(), v.end(), [&](double x) { return x >= flo; });
    auto in_hi = std::find_if(v.rbegin(), v.rend(), [&](double x) { return x <= fhi; });
    const double wlo = in_lo != v.end() ? *in_lo : q1, whi = in_hi != v.rend() ? *in_hi : q3;
    out += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#555"/>)", px(wlo), mid, px(whi), mid);
    out += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.25" stroke="{}"/>)",
                       px(q1), y + 8, std::max(1.0, px(q3) - px(q1)), row_h - 16, col, col);
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#222" stroke-width="2"><title>median {3:.4g}</title></line>)",
                       px(med), y + 8, y + row_h - 8, med);
    for (size_t k = 0; k < v.size(); ++k) {
      // Deterministic vertical jitter spreads equal values without randomness in the output.
      double jitter = (static_cast<double>((k * 7919) % 17) / 16.0 - 0.5) * (row_h - 20);
      bool outlier = v[k] < flo || v[k] > fhi;
      out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="{}" fill-opacity="0.7"><title>{:.4g}{}</title></circle>)",
                         px(v[k]), mid + jitter, outlier ? "#c00" : col, v[k], outlier ? " (outlier)" : "");
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace banjia::html
