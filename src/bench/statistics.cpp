#include "bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "common/thread_pool.h"

namespace banjia::bench {

double quantile_sorted(const std::vector<double>& x, double q) {
  const double h = static_cast<double>(x.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return x.back();
  return x[lo] + (h - static_cast<double>(lo)) * (x[lo + 1] - x[lo]);
}

SampleSummary summarize_sample(const std::vector<double>& values, double tukey_k) {
  SampleSummary s;
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

// Uniform index in [0, n) by Lemire's multiply-shift: no division, a bias of at most n / 2^64, and
// (unlike std::uniform_int_distribution) the same sequence with every standard library.
size_t draw_index(std::mt19937_64& rng, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

// Median of one bootstrap resample of `sorted` without materialising it: count how often each sorted
// position is drawn, then walk the counts to the middle order statistic(s). O(n), no sorting.
double resampled_median(const std::vector<double>& sorted, std::vector<uint32_t>& counts, std::mt19937_64& rng) {
  const size_t n = sorted.size();
  counts.assign(n, 0);
  for (size_t i = 0; i < n; ++i) ++counts[draw_index(rng, n)];
  const size_t lo_rank = (n - 1) / 2, hi_rank = n / 2;  // 0-based ranks; equal when n is odd
  size_t seen = 0;
  double lo = 0;
  bool have_lo = false;
  for (size_t j = 0; j < n; ++j) {
    seen += counts[j];
    if (!have_lo && seen > lo_rank) {
      lo = sorted[j];
      have_lo = true;
    }
    if (seen > hi_rank) return lo + 0.5 * (sorted[j] - lo);
  }
  return sorted.back();  // unreachable: the counts sum to n
}

// Resamples are drawn in fixed chunks, each from its own generator seeded from (seed, chunk), so the
// interval is the same whatever the number of threads.
constexpr int kChunk = 250;

uint64_t chunk_seed(uint64_t seed, uint64_t chunk) {  // SplitMix64 finaliser: well-spread seeds
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (chunk + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

Interval bootstrap_median_ratio(const std::vector<const std::vector<double>*>& num,
                                const std::vector<const std::vector<double>*>& den, const BootstrapSpec& spec) {
  std::vector<std::vector<double>> sorted_num, sorted_den;
  double n_prod = 1, d_prod = 1;
  for (const auto* v : num) {
    sorted_num.push_back(*v);
    std::sort(sorted_num.back().begin(), sorted_num.back().end());
    n_prod *= quantile_sorted(sorted_num.back(), 0.5);
  }
  for (const auto* v : den) {
    sorted_den.push_back(*v);
    std::sort(sorted_den.back().begin(), sorted_den.back().end());
    d_prod *= quantile_sorted(sorted_den.back(), 0.5);
  }
  Interval out;
  out.estimate = n_prod / d_prod;
  const size_t resamples = static_cast<size_t>(std::max(spec.resamples, 0));
  if (resamples == 0) {
    out.low = out.high = out.estimate;
    return out;
  }
  std::vector<double> ratios(resamples);
  const size_t chunks = (resamples + kChunk - 1) / kChunk;
  parallel_for(chunks, worker_count(), [&](size_t c) {
    std::mt19937_64 rng(chunk_seed(spec.seed, c));
    std::vector<uint32_t> counts;
    for (size_t r = c * kChunk; r < std::min(resamples, (c + 1) * kChunk); ++r) {
      double a = 1, b = 1;
      for (const auto& v : sorted_num) a *= resampled_median(v, counts, rng);
      for (const auto& v : sorted_den) b *= resampled_median(v, counts, rng);
      ratios[r] = a / b;
    }
  });
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1.0 - spec.confidence;
  out.low = quantile_sorted(ratios, alpha / 2);
  out.high = quantile_sorted(ratios, 1 - alpha / 2);
  return out;
}

}  // namespace banjia::bench
