// compare's inner loop: one pass of float64-accumulated metrics over float32 pairs.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "compare/analysis/metric_kernel.h"

namespace {

void BM_MetricKernelFloat32(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<float> a(n), b(n);
  std::mt19937 rng(1);
  std::normal_distribution<float> d(0.f, 1.f);
  for (size_t i = 0; i < n; ++i) {
    a[i] = d(rng);
    b[i] = a[i] * (1.f + 1e-3f * d(rng));
  }
  banjia::compare::Tolerance tol{1.3e-6, 1e-5};
  for (auto _ : state) {
    banjia::compare::MetricAcc acc;
    bool ok = banjia::compare::accumulate_finite<float>(acc, reinterpret_cast<const std::byte*>(a.data()),
                                                       reinterpret_cast<const std::byte*>(b.data()), n, tol);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(acc.dot);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 2 * sizeof(float)));
}
BENCHMARK(BM_MetricKernelFloat32)->Arg(1 << 16)->Arg(1 << 22);

}  // namespace
