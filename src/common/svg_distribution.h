// Distribution chart as inline SVG: one horizontal row per series with a box (quartiles, median,
// whiskers to the most extreme points inside the fences) and every observation drawn as a dot,
// so outliers stay visible. Companion of common/html.h (used by `bench compare --html`).
#pragma once
#include <string>
#include <vector>

namespace banjia::html {

struct DistributionSeries {
  std::string name;
  std::vector<double> values;  // non-finite values are ignored
  // Box statistics, computed by the caller with its own quantile definition.
  double q1 = 0, median = 0, q3 = 0;
  double fence_low = 0, fence_high = 0;  // points outside are drawn as outliers
};

struct DistributionChart {
  std::string title;
  std::string unit;  // axis label, e.g. "ms"
  std::vector<DistributionSeries> series;
};

std::string svg_distribution_chart(const DistributionChart& chart);

}  // namespace banjia::html
