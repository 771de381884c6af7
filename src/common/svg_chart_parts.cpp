#include "common/svg_chart_parts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/html_escape.h"

namespace banjia::html {

namespace {
const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};

// 1, 2, 5 or 10 times a power of ten, the smallest at least `raw`.
double nice_step(double raw) {
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / magnitude;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

// Decodes one code point at s[i] and advances i; an invalid byte counts as one narrow character.
char32_t next_code_point(std::string_view s, size_t& i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + len > s.size()) len = 1;
  char32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  i += len;
  return cp;
}

// East Asian wide and fullwidth ranges (Unicode UAX #11): Hangul, CJK, kana, fullwidth forms.
bool is_wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || cp >= 0x20000;
}

double code_point_width(char32_t cp, double font_size) { return (is_wide(cp) ? 1.0 : 0.6) * font_size; }
}  // namespace

Axis nice_linear_axis(double lo, double hi, int max_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo <= 1e-12 * std::max(1.0, std::fabs(hi))) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  double step = nice_step((hi - lo) / std::max(1, max_ticks - 1));
  auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  Axis axis;
  for (long long i = first; i <= last; ++i) {
    double v = static_cast<double>(i) * step;
    axis.ticks.push_back({v, format_round(v)});
  }
  axis.lo = static_cast<double>(first) * step;
  axis.hi = static_cast<double>(last) * step;
  return axis;
}

Axis decade_axis(double lo, double hi, int max_ticks) {
  if (!(lo > 0) || !std::isfinite(lo)) lo = 1;
  if (!(hi > 0) || !std::isfinite(hi)) hi = lo;
  if (hi < lo) std::swap(lo, hi);
  auto k_lo = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  auto k_hi = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (k_hi <= k_lo) k_hi = k_lo + 1;
  int decades = k_hi - k_lo;
  int step = (decades + std::max(1, max_ticks - 1) - 1) / std::max(1, max_ticks - 1);
  k_hi = k_lo + (decades + step - 1) / step * step;
  Axis axis;
  for (int k = k_lo; k <= k_hi; k += step) {
    double v = std::pow(10.0, k);
    axis.ticks.push_back({v, format_round(v)});
  }
  axis.lo = std::pow(10.0, k_lo);
  axis.hi = std::pow(10.0, k_hi);
  return axis;
}

std::string format_round(double v) {
  if (v == 0 || std::fabs(v) < 1e-300) return "0";
  std::string s = fmt::format("{:.6g}", v);
  size_t e = s.find('e');
  if (e == std::string::npos) return s;
  // "1e-05" -> "1e-5", "1.5e+06" -> "1.5e6"
  std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
  bool negative = exponent[0] == '-';
  size_t digits = exponent.find_first_not_of("+-0");
  return mantissa + "e" + (negative ? "-" : "") + (digits == std::string::npos ? "0" : exponent.substr(digits));
}

double estimated_text_width(std::string_view text, double font_size) {
  double w = 0;
  for (size_t i = 0; i < text.size();) w += code_point_width(next_code_point(text, i), font_size);
  return w;
}

std::string fit_text(std::string_view text, double font_size, double max_width) {
  if (estimated_text_width(text, font_size) <= max_width) return std::string(text);
  const double budget = max_width - estimated_text_width("…", font_size);
  double w = 0;
  size_t i = 0, cut = 0;
  while (i < text.size()) {
    w += code_point_width(next_code_point(text, i), font_size);
    if (w > budget) break;
    cut = i;
  }
  return std::string(text.substr(0, cut)) + "…";
}

const char* series_color(size_t i) { return kPalette[i % (sizeof kPalette / sizeof kPalette[0])]; }

Legend legend(const std::vector<std::string>& names, double x, double y, double max_x) {
  const double font = 11, row_h = 16, swatch = 10, gap = 18;
  Legend out;
  if (names.empty()) return out;
  double lx = x, ly = y;
  for (size_t i = 0; i < names.size(); ++i) {
    double item_w = swatch + 4 + estimated_text_width(names[i], font);
    if (lx > x && lx + item_w > max_x) {
      lx = x;
      ly += row_h;
    }
    out.svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{}" height="{}" fill="{}"/>)", lx, ly, swatch, swatch,
                           series_color(i));
    out.svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}">{}</text>)", lx + swatch + 4, ly + 9, font,
                           escape(names[i]));
    lx += item_w + gap;
  }
  out.height = ly - y + row_h;
  return out;
}

std::string svg_open(double width, double height, std::string_view title) {
  return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0:.0f} {1:.0f}" width="100%" )"
                     R"(style="max-width:{0:.0f}px" role="img" aria-label="{2}">)",
                     width, height, escape(title));
}

}  // namespace banjia::html
