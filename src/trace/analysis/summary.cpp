// Distribution statistics of the summary's tables (durations, launch delays).
#include "trace/analysis/summary.h"
#include "trace/model/trace_model.h"

#include <algorithm>
#include <cmath>

namespace banjia::trace {

DistStats dist_stats(std::vector<double> v) {
  DistStats d;
  d.count = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean_us = sum / static_cast<double>(v.size());
  size_t n = v.size();
  d.median_us = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  d.p95_us = v[static_cast<size_t>(std::ceil(0.95 * static_cast<double>(n))) - 1];
  d.max_us = v.back();
  return d;
}

namespace {

double median_in_place(std::vector<int64_t>& v) {
  const size_t n = v.size();
  if (n == 0) return 0;
  auto mid = v.begin() + static_cast<ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2) return *mid / kNsPerUs;
  return (*std::max_element(v.begin(), mid) / kNsPerUs + *mid / kNsPerUs) / 2;
}
}  // namespace

DistStats dist_stats_ns(std::vector<int64_t> v) {
  DistStats d;
  d.count = v.size();
  if (v.empty()) return d;
  const size_t n = v.size();
  int64_t sum = 0;
  for (int64_t x : v) sum += x;
  d.mean_us = static_cast<double>(sum) / kNsPerUs / static_cast<double>(n);
  d.median_us = median_in_place(v);  // partially orders v: [0, n/2) <= v[n/2] <= the rest
  size_t p95 = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(n))) - 1;  // >= n/2
  std::nth_element(v.begin() + static_cast<ptrdiff_t>(n / 2), v.begin() + static_cast<ptrdiff_t>(p95), v.end());
  d.p95_us = v[p95] / kNsPerUs;
  d.max_us = *std::max_element(v.begin() + static_cast<ptrdiff_t>(p95), v.end()) / kNsPerUs;
  return d;
}

double median_us(std::vector<int64_t> v) { return median_in_place(v); }

}  // namespace banjia::trace
