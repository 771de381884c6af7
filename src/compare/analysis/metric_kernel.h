// The inner loop of compute_metrics: float64 accumulators over element pairs. A SIMD path handles
// blocks of finite values (AVX2 when the CPU has it, 2-lane vectors elsewhere); a scalar path
// handles blocks holding nan/inf with msprobe's rules.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace banjia::compare {

// allclose's tolerances: |a - b| <= atol + rtol * |b|.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

struct MetricAcc {
  double dot = 0, aa = 0, bb = 0, dd = 0, sum_abs = 0, max_abs = 0, max_rel = 0;
  double a_sum = 0, b_sum = 0;
  double a_max = -INFINITY, a_min = INFINITY, b_max = -INFINITY, b_min = INFINITY;
  int64_t below_1e3 = 0, below_5e3 = 0, mismatches = 0, a_over = 0, b_over = 0;
  int64_t a_nan = 0, a_inf = 0, b_nan = 0, b_inf = 0, position_mismatch = 0;
  int64_t finite_a = 0, finite_b = 0;
};

// Adds `len` pairs if all are finite and returns true; returns false and leaves `s` unchanged
// when any value is nan or inf (the caller then uses accumulate_checked per element).
// `a` and `b` point at little-endian float32 (T = float) or float64 (T = double) elements with any
// alignment (zip members are not aligned): values are read with memcpy.
template <class T>
bool accumulate_finite(MetricAcc& s, const std::byte* a, const std::byte* b, size_t len, const Tolerance& tol);

template <class T>
inline double load_element(const std::byte* p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof v);
  return static_cast<double>(v);
}

// One pair, nan/inf allowed: same-kind non-finite values at the same position count as 0 vs 0
// (msprobe's handle_inf_nan); anything else is a position mismatch.
void accumulate_checked(MetricAcc& s, double a, double b, const Tolerance& tol);

}  // namespace banjia::compare
