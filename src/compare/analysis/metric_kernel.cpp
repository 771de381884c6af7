#include "compare/analysis/metric_kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/cpu_features.h"

namespace banjia::compare {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();  // msprobe Const.FLOAT_EPSILON
constexpr double kFp16Max = 65504.0;

// One finite pair (the scalar twin of Lanes::add).
inline void accumulate_one(MetricAcc& s, double n, double b, const Tolerance& tol) {
  double d = n - b, ad = std::fabs(d);
  s.dot += n * b; s.aa += n * n; s.bb += b * b; s.dd += d * d; s.sum_abs += ad;
  s.max_abs = std::max(s.max_abs, ad);
  bool zero = b == 0;
  double be = zero ? kEps : b, ne = zero ? n + kEps : n;
  double re = std::fabs(ne - be) / std::fabs(be);
  s.max_rel = std::max(s.max_rel, re);
  s.below_1e3 += re < 1e-3; s.below_5e3 += re < 5e-3;
  s.mismatches += ad > tol.atol + tol.rtol * std::fabs(b);
  s.a_over += std::fabs(n) > kFp16Max; s.b_over += std::fabs(b) > kFp16Max;
  s.a_sum += n; s.b_sum += b;
  s.a_max = std::max(s.a_max, n); s.a_min = std::min(s.a_min, n);
  s.b_max = std::max(s.b_max, b); s.b_min = std::min(s.b_min, b);
}

// GCC vector extensions: portable SIMD (SSE2/AVX2 on x86, NEON on Arm). The vector types only
// appear inside this file, so the ABI note about 32-byte vectors without AVX does not matter.
#pragma GCC diagnostic ignored "-Wpsabi"
using v2d = double __attribute__((vector_size(16)));
using v2l = int64_t __attribute__((vector_size(16)));
using v2f = float __attribute__((vector_size(8)));
using v4d = double __attribute__((vector_size(32)));
using v4l = int64_t __attribute__((vector_size(32)));
using v4f = float __attribute__((vector_size(16)));

template <class V> struct Traits;
template <> struct Traits<v2d> { using L = v2l; using F = v2f; static constexpr int kWidth = 2; };
#if defined(__x86_64__)
// Four lanes only for the AVX2 kernel (x86-64); elsewhere clang would report kWidth unused.
template <> struct Traits<v4d> { using L = v4l; using F = v4f; static constexpr int kWidth = 4; };
#endif

#define BANJIA_INLINE [[gnu::always_inline]] inline

template <class V> BANJIA_INLINE V splat(double x) { return V{} + x; }
template <class V, class L = typename Traits<V>::L>
BANJIA_INLINE V select(L mask, V yes, V no) { return (V)(((L)yes & mask) | ((L)no & ~mask)); }  // casts keep bits
template <class V, class L = typename Traits<V>::L>
BANJIA_INLINE V vabs(V v) { return (V)((L)v & (L{} + 0x7fffffffffffffffLL)); }
template <class V> BANJIA_INLINE V vmax(V a, V b) { return select<V>(a > b, a, b); }
template <class V> BANJIA_INLINE V vmin(V a, V b) { return select<V>(a < b, a, b); }

template <class V, class T> BANJIA_INLINE V load(const std::byte* p, size_t i) {
  if constexpr (std::is_same_v<T, double>) {
    V v;
    std::memcpy(&v, p + i * sizeof(T), sizeof v);
    return v;
  } else {
    typename Traits<V>::F f;
    std::memcpy(&f, p + i * sizeof(T), sizeof f);
    return __builtin_convertvector(f, V);
  }
}

template <class V>
struct Lanes {
  using L = typename Traits<V>::L;
  V dot{}, aa{}, bb{}, dd{}, sabs{}, mabs{}, mrel{}, asum{}, bsum{}, probe{};
  V amax = splat<V>(-INFINITY), amin = splat<V>(INFINITY), bmax = splat<V>(-INFINITY), bmin = splat<V>(INFINITY);
  L c1{}, c5{}, mis{}, aov{}, bov{};

  BANJIA_INLINE void add(V x, V y, V atol, V rtol) {
    const V eps = splat<V>(kEps), big = splat<V>(kFp16Max), zero_v{};
    probe += x * zero_v + y * zero_v;  // NaN exactly when some x or y is nan or inf
    V d = x - y, ad = vabs(d), ay = vabs(y);
    dot += x * y; aa += x * x; bb += y * y; dd += d * d; sabs += ad;
    mabs = vmax(mabs, ad);
    L zero = y == zero_v;
    V be = select<V>(zero, eps, y), ne = select<V>(zero, x + eps, x);
    V re = vabs(ne - be) / vabs(be);
    mrel = vmax(mrel, re);
    c1 -= re < splat<V>(1e-3); c5 -= re < splat<V>(5e-3);  // comparisons yield -1 for true
    mis -= ad > atol + rtol * ay;
    aov -= vabs(x) > big; bov -= ay > big;
    asum += x; bsum += y;
    amax = vmax(amax, x); amin = vmin(amin, x); bmax = vmax(bmax, y); bmin = vmin(bmin, y);
  }
};

template <class V> BANJIA_INLINE double hsum(V v) {
  double s = 0;
  for (int i = 0; i < Traits<V>::kWidth; ++i) s += v[i];
  return s;
}
template <class V> BANJIA_INLINE double hmax(V v) {
  double m = v[0];
  for (int i = 1; i < Traits<V>::kWidth; ++i) m = std::max(m, static_cast<double>(v[i]));
  return m;
}
template <class V> BANJIA_INLINE double hmin(V v) {
  double m = v[0];
  for (int i = 1; i < Traits<V>::kWidth; ++i) m = std::min(m, static_cast<double>(v[i]));
  return m;
}
template <class L> BANJIA_INLINE int64_t hsuml(L v) {
  int64_t s = 0;
  for (size_t i = 0; i < sizeof(L) / sizeof(int64_t); ++i) s += v[i];
  return s;
}

// Two interleaved lane sets for instruction-level parallelism; the scalar tail uses the same
// formulas. Works on a copy so that a block with nan/inf leaves `s` untouched.
template <class V, class T>
BANJIA_INLINE bool finite_block(MetricAcc& s, const std::byte* n, const std::byte* b, size_t len,
                                const Tolerance& tol) {
  constexpr size_t W = Traits<V>::kWidth;
  Lanes<V> p, q;
  const V atol = splat<V>(tol.atol), rtol = splat<V>(tol.rtol);
  size_t i = 0;
  for (; i + 2 * W <= len; i += 2 * W) {
    p.add(load<V, T>(n, i), load<V, T>(b, i), atol, rtol);
    q.add(load<V, T>(n, i + W), load<V, T>(b, i + W), atol, rtol);
  }
  double probe = hsum(p.probe) + hsum(q.probe);
  for (size_t j = i; j < len; ++j) probe += load_element<T>(n, j) * 0.0 + load_element<T>(b, j) * 0.0;
  if (probe != 0 || std::isnan(probe)) return false;
  MetricAcc t = s;
  for (const Lanes<V>* l : {&p, &q}) {
    t.dot += hsum(l->dot); t.aa += hsum(l->aa); t.bb += hsum(l->bb); t.dd += hsum(l->dd);
    t.sum_abs += hsum(l->sabs);
    t.max_abs = std::max(t.max_abs, hmax(l->mabs)); t.max_rel = std::max(t.max_rel, hmax(l->mrel));
    t.below_1e3 += hsuml(l->c1); t.below_5e3 += hsuml(l->c5); t.mismatches += hsuml(l->mis);
    t.a_over += hsuml(l->aov); t.b_over += hsuml(l->bov);
    t.a_sum += hsum(l->asum); t.b_sum += hsum(l->bsum);
    t.a_max = std::max(t.a_max, hmax(l->amax)); t.a_min = std::min(t.a_min, hmin(l->amin));
    t.b_max = std::max(t.b_max, hmax(l->bmax)); t.b_min = std::min(t.b_min, hmin(l->bmin));
  }
  for (; i < len; ++i) accumulate_one(t, load_element<T>(n, i), load_element<T>(b, i), tol);
  t.finite_a += static_cast<int64_t>(len);
  t.finite_b += static_cast<int64_t>(len);
  s = t;
  return true;
}

#if defined(__x86_64__)
#define BANJIA_AVX2 __attribute__((target("avx2")))
template <class T>
BANJIA_AVX2 bool block_avx2(MetricAcc& s, const std::byte* n, const std::byte* b, size_t len, const Tolerance& tol) {
  return finite_block<v4d, T>(s, n, b, len, tol);
}
#endif

}  // namespace

template <class T>
bool accumulate_finite(MetricAcc& s, const std::byte* a, const std::byte* b, size_t len, const Tolerance& tol) {
#if defined(__x86_64__)
  if (cpu_has_avx2()) return block_avx2<T>(s, a, b, len, tol);
#endif
  return finite_block<v2d, T>(s, a, b, len, tol);
}
template bool accumulate_finite<float>(MetricAcc&, const std::byte*, const std::byte*, size_t, const Tolerance&);
template bool accumulate_finite<double>(MetricAcc&, const std::byte*, const std::byte*, size_t, const Tolerance&);

void accumulate_checked(MetricAcc& s, double n, double b, const Tolerance& tol) {
  bool fa = std::isfinite(n), fb = std::isfinite(b);
  if (!fa) (std::isnan(n) ? s.a_nan : s.a_inf)++;
  if (!fb) (std::isnan(b) ? s.b_nan : s.b_inf)++;
  if (fa) ++s.finite_a;
  if (fb) ++s.finite_b;
  if (fa && fb) {
    accumulate_one(s, n, b, tol);
    return;
  }
  if (!fa && !fb && std::isnan(n) == std::isnan(b)) {
    // Stand-in zeros for the metrics only: side statistics and the allclose count stay as they are.
    MetricAcc keep = s;
    accumulate_one(s, 0.0, 0.0, tol);
    s.a_sum = keep.a_sum; s.b_sum = keep.b_sum;
    s.a_max = keep.a_max; s.a_min = keep.a_min; s.b_max = keep.b_max; s.b_min = keep.b_min;
    // nan/inf in the same places on both sides are equal (torch.testing with equal_nan=True).
    s.mismatches = keep.mismatches + (std::isinf(n) && n != b);
    return;
  }
  ++s.position_mismatch;
  ++s.mismatches;
  if (fa) {  // keep the finite side's statistics honest
    s.a_sum += n; s.a_max = std::max(s.a_max, n); s.a_min = std::min(s.a_min, n); s.aa += n * n;
    s.a_over += std::fabs(n) > kFp16Max;
  }
  if (fb) {
    s.b_sum += b; s.b_max = std::max(s.b_max, b); s.b_min = std::min(s.b_min, b); s.bb += b * b;
    s.b_over += std::fabs(b) > kFp16Max;
  }
}

}  // namespace banjia::compare
