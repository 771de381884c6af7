#include "bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace banjia::bench {

double quantile_sorted(const std::vector<double>& x, double q) {
  const double h = static_cast<double>(x.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return x.back();
  return x[lo] + (h - static_cast<double>(lo)) * (x[lo + 1] - x[lo]);
}

Summary summarize(const std::vector<double>& values, double tukey_k) {
  Summary s;
  std::vector<double> x = values;
  std::sort(x.begin(), x.end());
  s.n = x.size();
  s.min = x.front();
  s.max = x.back();
  s.mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double v : x) ss += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean != 0 ? s.stdev / s.mean : 0;
  s.median = quantile_sorted(x, 0.5);
  s.p95 = quantile_sorted(x, 0.95);
  s.q1 = quantile_sorted(x, 0.25);
  s.q3 = quantile_sorted(x, 0.75);
  const double iqr = s.q3 - s.q1;
  s.fence_low = s.q1 - tukey_k * iqr;
  s.fence_high = s.q3 + tukey_k * iqr;
  for (double v : x) {
    if (v < s.fence_low) ++s.outliers_low;
    if (v > s.fence_high) ++s.outliers_high;
  }
  return s;
}

namespace {

// Median of buf (reordered in place), same definition as quantile_sorted(…, 0.5).
double median_in_place(std::vector<double>& buf) {
  const size_t n = buf.size();
  const size_t mid = (n - 1) / 2;
  std::nth_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(mid), buf.end());
  const double lo = buf[mid];
  if (n % 2 == 1) return lo;
  const double hi = *std::min_element(buf.begin() + static_cast<std::ptrdiff_t>(mid) + 1, buf.end());
  return lo + 0.5 * (hi - lo);
}

double median_of(const std::vector<double>& v) {
  std::vector<double> buf = v;
  return median_in_place(buf);
}

// Uniform index in [0, n): the modulo bias is at most n / 2^64, negligible for sample sizes here,
// and unlike std::uniform_int_distribution the sequence is the same with every standard library.
size_t draw_index(std::mt19937_64& rng, size_t n) { return static_cast<size_t>(rng() % n); }

double resampled_median(const std::vector<double>& v, std::vector<double>& buf, std::mt19937_64& rng) {
  buf.resize(v.size());
  for (double& b : buf) b = v[draw_index(rng, v.size())];
  return median_in_place(buf);
}

}  // namespace

Interval bootstrap_median_ratio(const std::vector<const std::vector<double>*>& num,
                                const std::vector<const std::vector<double>*>& den, const BootstrapSpec& spec) {
  Interval out;
  double n_prod = 1, d_prod = 1;
  for (const auto* v : num) n_prod *= median_of(*v);
  for (const auto* v : den) d_prod *= median_of(*v);
  out.estimate = n_prod / d_prod;
  std::mt19937_64 rng(spec.seed);
  std::vector<double> ratios, buf;
  ratios.reserve(static_cast<size_t>(std::max(spec.resamples, 1)));
  for (int r = 0; r < spec.resamples; ++r) {
    double a = 1, b = 1;
    for (const auto* v : num) a *= resampled_median(*v, buf, rng);
    for (const auto* v : den) b *= resampled_median(*v, buf, rng);
    ratios.push_back(a / b);
  }
  if (ratios.empty()) {
    out.low = out.high = out.estimate;
    return out;
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1.0 - spec.confidence;
  out.low = quantile_sorted(ratios, alpha / 2);
  out.high = quantile_sorted(ratios, 1 - alpha / 2);
  return out;
}

}  // namespace banjia::bench
