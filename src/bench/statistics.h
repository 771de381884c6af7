// Descriptive statistics of per-iteration times and the bootstrap interval of a ratio of medians.
// Quantiles use numpy's default definition (method="linear", Hyndman & Fan type 7): for sorted x of
// size n, h = (n-1)q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace banjia::bench {

// Quantile of an ascending-sorted, non-empty vector (numpy "linear").
double quantile_sorted(const std::vector<double>& sorted, double q);

struct SampleSummary {
  size_t n = 0;
  double mean = 0, stdev = 0, cv = 0;  // stdev with ddof=1 (0 when n < 2); cv = stdev / mean
  double min = 0, max = 0, median = 0, p95 = 0, q1 = 0, q3 = 0;
  double fence_low = 0, fence_high = 0;  // Tukey fences: q1 - k*IQR, q3 + k*IQR
  size_t outliers_low = 0, outliers_high = 0;
};

// Summary of a non-empty sample; `tukey_k` sets the outlier fences.
SampleSummary summarize_sample(const std::vector<double>& values, double tukey_k);

struct Interval {
  double estimate = 0;  // the ratio on the full samples
  double low = 0, high = 0;
};

struct BootstrapSpec {
  int resamples = 2000;
  uint64_t seed = 0;
  double confidence = 0.95;
};

// Percentile-bootstrap interval of  prod(median(num_i)) / prod(median(den_i)).
// Each sample is resampled independently with replacement by std::mt19937_64 generators derived from
// spec.seed, so the interval is identical on every run and with any number of threads. All samples
// must be non-empty.
Interval bootstrap_median_ratio(const std::vector<const std::vector<double>*>& numerators,
                                const std::vector<const std::vector<double>*>& denominators,
                                const BootstrapSpec& spec);

}  // namespace banjia::bench
