// The HTML report helpers: round axis ticks (expected values worked out by hand from the 1-2-5 rule),
// legends that wrap instead of overlapping, fluid SVG roots, tables with per-column alignment and
// per-row classes, line-chart x ticks and markers.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "common/html.h"
#include "common/svg_chart_parts.h"

namespace banjia::html {
namespace {

std::vector<std::string> labels(const Axis& a) {
  std::vector<std::string> out;
  for (const auto& t : a.ticks) out.push_back(t.label);
  return out;
}

TEST(HtmlAxis, LinearTicksAreMultiplesOfOneTwoFive) {
  // span 1.454 over 5 intervals: 0.29 -> step 0.5
  EXPECT_EQ(labels(nice_linear_axis(0, 1.454)), (std::vector<std::string>{"0", "0.5", "1", "1.5"}));
  // span 37 over 5 intervals: 7.4 -> step 10; the axis reaches the ticks around [3, 40]
  Axis a = nice_linear_axis(3, 40);
  EXPECT_EQ(labels(a), (std::vector<std::string>{"0", "10", "20", "30", "40"}));
  EXPECT_DOUBLE_EQ(a.lo, 0);
  EXPECT_DOUBLE_EQ(a.hi, 40);
  // 0.1 + 0.2 style float noise never reaches a label: step 0.1 from 0.3
  EXPECT_EQ(labels(nice_linear_axis(0.3, 0.7, 5)), (std::vector<std::string>{"0.3", "0.4", "0.5", "0.6", "0.7"}));
  // a single value gets a range around it
  EXPECT_GE(nice_linear_axis(5, 5).ticks.size(), 2u);
}

TEST(HtmlAxis, LogTicksAreDecades) {
  // 1.4e-4 .. 0.03 -> 1e-4 .. 0.1
  EXPECT_EQ(labels(decade_axis(1.4e-4, 0.03)), (std::vector<std::string>{"0.0001", "0.001", "0.01", "0.1"}));
  EXPECT_EQ(labels(decade_axis(3e-7, 2e-6)), (std::vector<std::string>{"1e-7", "1e-6", "1e-5"}));
  // inside one decade: still a whole decade
  EXPECT_EQ(labels(decade_axis(2e-3, 4e-3)), (std::vector<std::string>{"0.001", "0.01"}));
  // 1e-16 .. 1 is 16 decades, 7 intervals at most: every third decade, 1e-16 .. 100
  Axis wide = decade_axis(1e-16, 1, 8);
  ASSERT_EQ(wide.ticks.size(), 7u);
  EXPECT_EQ(wide.ticks.front().label, "1e-16");
  EXPECT_EQ(wide.ticks.back().label, "100");
  for (const auto& t : wide.ticks) {
    double k = std::log10(t.value);
    EXPECT_NEAR(k, std::round(k), 1e-9) << t.label;
  }
}

TEST(HtmlAxis, FormatRound) {
  EXPECT_EQ(format_round(0), "0");
  EXPECT_EQ(format_round(0.30000000000000004), "0.3");
  EXPECT_EQ(format_round(1e-5), "1e-5");
  EXPECT_EQ(format_round(1.5e6), "1.5e6");
  EXPECT_EQ(format_round(500), "500");
}

TEST(HtmlText, WidthCountsCjkAsFullEm) {
  EXPECT_DOUBLE_EQ(estimated_text_width("ab", 10), 12);
  EXPECT_DOUBLE_EQ(estimated_text_width("中文", 10), 20);
  // cut on a code point boundary, never inside a multi-byte character
  std::string cut = fit_text("中文中文中文中文", 10, 45);
  EXPECT_EQ(cut, "中文中…");
}

// Legend items are laid out from estimated widths: no item may start before the previous one ends.
TEST(HtmlLegend, ItemsDoNotOverlapAndWrap) {
  std::vector<std::string> names = {"relative L2 error ‖a−b‖/‖b‖", "1 − cosine", "a third series with a long name",
                                    "fourth"};
  Legend l = legend(names, 70, 24, 400);
  std::regex text_re(R"re(<text x="([0-9.]+)" y="([0-9.]+)")re");
  std::vector<std::pair<double, double>> pos;
  for (auto it = std::sregex_iterator(l.svg.begin(), l.svg.end(), text_re); it != std::sregex_iterator(); ++it)
    pos.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  ASSERT_EQ(pos.size(), names.size());
  for (size_t i = 1; i < pos.size(); ++i) {
    if (pos[i].second != pos[i - 1].second) continue;  // wrapped onto a new row
    EXPECT_GE(pos[i].first, pos[i - 1].first + estimated_text_width(names[i - 1], 11)) << i;
  }
  EXPECT_GT(l.height, 16);  // 4 names in 330 px take more than one row
  for (size_t i = 0; i < pos.size(); ++i) EXPECT_LE(pos[i].first + estimated_text_width(names[i], 11), 400 + 1) << i;
}

TEST(HtmlSvg, RootIsFluid) {
  LineChart c;
  c.series = {{"s", {1, 2, 3}}};
  std::string svg = svg_line_chart(c);
  EXPECT_NE(svg.find(R"(viewBox="0 0 )"), std::string::npos);
  EXPECT_NE(svg.find(R"(width="100%")"), std::string::npos);
  EXPECT_EQ(svg.find(R"(width="850")"), std::string::npos);
  BarChart b;
  b.bars = {{"x", {1}}};
  EXPECT_NE(svg_bar_chart(b).find(R"(width="100%")"), std::string::npos);
}

TEST(HtmlLineChart, XTicksNamesAndMarker) {
  LineChart c;
  c.x_label = "entry index";
  c.series = {{"s", std::vector<double>(41, 1.0)}};
  for (int i = 0; i <= 40; ++i) c.x_names.push_back("layer" + std::to_string(i));
  c.markers = {{12, "first divergence: #12", "#c00"}};
  std::string svg = svg_line_chart(c);
  std::regex tick_re(R"re(class="x-tick"[^>]*>([0-9]+)<)re");
  std::vector<std::string> ticks;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick_re); it != std::sregex_iterator(); ++it)
    ticks.push_back((*it)[1]);
  // 0..40 over 8 intervals: 5 -> step 5
  EXPECT_EQ(ticks, (std::vector<std::string>{"0", "5", "10", "15", "20", "25", "30", "35", "40"}));
  EXPECT_NE(svg.find("<title>layer20</title>"), std::string::npos);
  EXPECT_NE(svg.find(R"(class="x-label")"), std::string::npos);
  EXPECT_NE(svg.find(R"(<g class="marker">)"), std::string::npos);
  EXPECT_NE(svg.find("first divergence: #12"), std::string::npos);
}

TEST(HtmlTable, AlignmentAndRowClasses) {
  std::string t = table({{"name", Align::kText}, {"time (ms)", Align::kNumber}}, {{{"a<b", "1.5"}, "status-fail"}});
  EXPECT_NE(t.find(R"(<tr class="status-fail"><td>a&lt;b</td><td class="num">1.5</td></tr>)"), std::string::npos) << t;
  EXPECT_NE(t.find(R"(<th class="num">time (ms)</th>)"), std::string::npos) << t;
}

TEST(HtmlPage, CssColoursStatusRowsAndListsCjkFonts) {
  std::string p = page("t", "");
  for (const char* s : {"pass", "warn", "fail", "error", "skipped"})
    EXPECT_TRUE(std::regex_search(p, std::regex(std::string(R"(tr\.status-)") + s + R"(\{color:#)"))) << s;
  EXPECT_NE(p.find("WenQuanYi Micro Hei"), std::string::npos);
  EXPECT_NE(p.find("Noto Sans CJK SC"), std::string::npos);
  EXPECT_NE(p.find("td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left"), std::string::npos);
}

}  // namespace
}  // namespace banjia::html
