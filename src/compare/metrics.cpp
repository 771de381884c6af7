#include "compare/metrics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace banjia::compare {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();  // msprobe Const.FLOAT_EPSILON
constexpr double kFp16Max = 65504.0;
constexpr size_t kChunk = 2048;

// Raw accumulators; finished into PairMetrics at the end.
struct Acc {
  double dot = 0, aa = 0, bb = 0, dd = 0, sum_abs = 0, max_abs = 0, max_rel = 0;
  double a_sum = 0, b_sum = 0;
  double a_max = -INFINITY, a_min = INFINITY, b_max = -INFINITY, b_min = INFINITY;
  int64_t below_1e3 = 0, below_5e3 = 0, mismatches = 0, a_over = 0, b_over = 0;
  int64_t a_nan = 0, a_inf = 0, b_nan = 0, b_inf = 0, position_mismatch = 0, finite_a = 0, finite_b = 0;
};

// One element pair of finite values (the scalar twin of the vector block below).
inline void accumulate_one(Acc& s, double n, double b, const Tolerance& tol) {
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

// Handles nan/inf as msprobe does: positions where both sides are non-finite of the same kind
// count as 0 vs 0 for the metrics; anything else is a position mismatch.
void accumulate_checked(Acc& s, double n, double b, const Tolerance& tol) {
  bool fa = std::isfinite(n), fb = std::isfinite(b);
  if (!fa) (std::isnan(n) ? s.a_nan : s.a_inf)++;
  if (!fb) (std::isnan(b) ? s.b_nan : s.b_inf)++;
  if (fa && fb) {
    accumulate_one(s, n, b, tol);
    return;
  }
  if (!fa && !fb && std::isnan(n) == std::isnan(b)) {
    if (!(std::isinf(n) && n == b)) ++s.mismatches;  // torch.testing: only equal infs are close
    double as = s.a_sum, bs = s.b_sum, amx = s.a_max, amn = s.a_min, bmx = s.b_max, bmn = s.b_min;
    int64_t m = s.mismatches;
    accumulate_one(s, 0.0, 0.0, tol);
    s.a_sum = as; s.b_sum = bs; s.a_max = amx; s.a_min = amn; s.b_max = bmx; s.b_min = bmn;
    s.mismatches = m;
    --s.finite_a; --s.finite_b;  // zeros stand in for the non-finite values; not part of side stats
    return;
  }
  ++s.position_mismatch;
  ++s.mismatches;
  if (fa) {  // keep the finite side's statistics honest
    s.a_sum += n; s.a_max = std::max(s.a_max, n); s.a_min = std::min(s.a_min, n); s.aa += n * n;
    s.a_over += std::fabs(n) > kFp16Max;
  } else {
    --s.finite_a;
  }
  if (fb) {
    s.b_sum += b; s.b_max = std::max(s.b_max, b); s.b_min = std::min(s.b_min, b); s.bb += b * b;
    s.b_over += std::fabs(b) > kFp16Max;
  } else {
    --s.finite_b;
  }
}

// Internal helpers only: the AVX-without-AVX ABI note does not apply across any public interface.
#pragma GCC diagnostic ignored "-Wpsabi"
using v4d = double __attribute__((vector_size(32)));
using v4l = int64_t __attribute__((vector_size(32)));

inline double hsum(v4d v) { return (v[0] + v[1]) + (v[2] + v[3]); }
inline double hmax(v4d v) { return std::max(std::max(v[0], v[1]), std::max(v[2], v[3])); }
inline double hmin(v4d v) { return std::min(std::min(v[0], v[1]), std::min(v[2], v[3])); }
inline int64_t hsuml(v4l v) { return v[0] + v[1] + v[2] + v[3]; }
inline v4d vabs(v4d v) {
  v4l bits = (v4l)v & (v4l{} + 0x7fffffffffffffffLL);  // vector casts reinterpret the bits
  return (v4d)bits;
}

// All-finite block of doubles, 4 lanes at a time (GCC vector extensions: portable SIMD).
void accumulate_block(Acc& s, const double* n, const double* b, size_t len, const Tolerance& tol) {
  v4d dot{}, aa{}, bb{}, dd{}, sabs{}, mabs{}, mrel{}, asum{}, bsum{};
  v4d amax = v4d{} - INFINITY, amin = v4d{} + INFINITY, bmax = amax, bmin = amin;
  v4l c1{}, c5{}, mis{}, aov{}, bov{};
  const v4d eps = v4d{} + kEps, atol = v4d{} + tol.atol, rtol = v4d{} + tol.rtol, big = v4d{} + kFp16Max;
  const v4d t1 = v4d{} + 1e-3, t5 = v4d{} + 5e-3;
  size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    v4d x, y;
    std::memcpy(&x, n + i, sizeof x);
    std::memcpy(&y, b + i, sizeof y);
    v4d d = x - y, ad = vabs(d);
    dot += x * y; aa += x * x; bb += y * y; dd += d * d; sabs += ad;
    mabs = ad > mabs ? ad : mabs;
    v4l zero = y == v4d{};
    v4d be = zero ? eps : y, ne = zero ? x + eps : x;
    v4d re = vabs(ne - be) / vabs(be);
    mrel = re > mrel ? re : mrel;
    c1 -= re < t1; c5 -= re < t5;  // comparisons yield -1 for true
    mis -= ad > atol + rtol * vabs(y);
    aov -= vabs(x) > big; bov -= vabs(y) > big;
    asum += x; bsum += y;
    amax = x > amax ? x : amax; amin = x < amin ? x : amin;
    bmax = y > bmax ? y : bmax; bmin = y < bmin ? y : bmin;
  }
  s.dot += hsum(dot); s.aa += hsum(aa); s.bb += hsum(bb); s.dd += hsum(dd); s.sum_abs += hsum(sabs);
  s.max_abs = std::max(s.max_abs, hmax(mabs)); s.max_rel = std::max(s.max_rel, hmax(mrel));
  s.below_1e3 += hsuml(c1); s.below_5e3 += hsuml(c5); s.mismatches += hsuml(mis);
  s.a_over += hsuml(aov); s.b_over += hsuml(bov);
  s.a_sum += hsum(asum); s.b_sum += hsum(bsum);
  s.a_max = std::max(s.a_max, hmax(amax)); s.a_min = std::min(s.a_min, hmin(amin));
  s.b_max = std::max(s.b_max, hmax(bmax)); s.b_min = std::min(s.b_min, hmin(bmin));
  for (; i < len; ++i) accumulate_one(s, n[i], b[i], tol);
}

bool all_finite(const double* n, const double* b, size_t len) {
  double probe = 0;  // x * 0 is NaN exactly for NaN and ±Inf
  for (size_t i = 0; i < len; ++i) probe += n[i] * 0.0 + b[i] * 0.0;
  return probe == 0;
}

void accumulate_chunk(Acc& s, const double* n, const double* b, size_t len, const Tolerance& tol) {
  s.finite_a += static_cast<int64_t>(len);
  s.finite_b += static_cast<int64_t>(len);
  if (all_finite(n, b, len)) {
    accumulate_block(s, n, b, len, tol);
  } else {
    for (size_t i = 0; i < len; ++i) accumulate_checked(s, n[i], b[i], tol);
  }
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {  // zero or subnormal: value = mant * 2^-24
    float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

template <class U>
U load_raw(const std::byte* p, bool swap) {
  U u;
  std::memcpy(&u, p, sizeof u);
  if (swap) {
    if constexpr (sizeof(U) == 2) u = __builtin_bswap16(u);
    else if constexpr (sizeof(U) == 4) u = __builtin_bswap32(u);
    else u = __builtin_bswap64(u);
  }
  return u;
}

// Decodes `len` elements starting at storage index `start` into doubles.
void decode(const NpyView& v, size_t start, size_t len, double* out) {
  const size_t sz = dtype_size(v.dtype);
  const std::byte* p = v.data + start * sz;
  const bool sw = v.big_endian;
  for (size_t i = 0; i < len; ++i, p += sz) {
    switch (v.dtype) {
      case DType::kBool: out[i] = static_cast<uint8_t>(*p) ? 1.0 : 0.0; break;
      case DType::kI8: out[i] = static_cast<int8_t>(*p); break;
      case DType::kU8: out[i] = static_cast<uint8_t>(*p); break;
      case DType::kI16: out[i] = static_cast<int16_t>(load_raw<uint16_t>(p, sw)); break;
      case DType::kU16: out[i] = load_raw<uint16_t>(p, sw); break;
      case DType::kI32: out[i] = static_cast<int32_t>(load_raw<uint32_t>(p, sw)); break;
      case DType::kU32: out[i] = load_raw<uint32_t>(p, sw); break;
      case DType::kI64: out[i] = static_cast<double>(static_cast<int64_t>(load_raw<uint64_t>(p, sw))); break;
      case DType::kU64: out[i] = static_cast<double>(load_raw<uint64_t>(p, sw)); break;
      case DType::kF16: out[i] = half_to_float(load_raw<uint16_t>(p, sw)); break;
      case DType::kBF16: out[i] = std::bit_cast<float>(static_cast<uint32_t>(load_raw<uint16_t>(p, sw)) << 16); break;
      case DType::kF32: out[i] = std::bit_cast<float>(load_raw<uint32_t>(p, sw)); break;
      case DType::kF64: out[i] = std::bit_cast<double>(load_raw<uint64_t>(p, sw)); break;
    }
  }
}

// Fast decode for the common case (little-endian float32): a plain widening loop.
void decode_fast(const NpyView& v, size_t start, size_t len, double* out) {
  if (v.dtype == DType::kF32 && !v.big_endian && reinterpret_cast<uintptr_t>(v.data) % alignof(float) == 0) {
    const float* f = reinterpret_cast<const float*>(v.data) + start;
    for (size_t i = 0; i < len; ++i) out[i] = f[i];
  } else {
    decode(v, start, len, out);
  }
}

// Whole array in C (row-major) order, for pairing with an array stored in the other order.
std::vector<double> c_order_copy(const NpyView& v) {
  std::vector<double> flat(v.count);
  decode(v, 0, v.count, flat.data());
  if (!v.fortran_order || v.shape.size() < 2) return flat;
  std::vector<double> out(v.count);
  std::vector<int64_t> idx(v.shape.size(), 0);
  for (size_t c = 0; c < v.count; ++c) {  // c walks C order; f is the Fortran offset of the same index
    size_t f = 0, stride = 1;
    for (size_t d = 0; d < v.shape.size(); ++d) {
      f += static_cast<size_t>(idx[d]) * stride;
      stride *= static_cast<size_t>(v.shape[d]);
    }
    out[c] = flat[f];
    for (size_t d = v.shape.size(); d-- > 0;) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

PairMetrics finish(const Acc& s, int64_t count) {
  PairMetrics m;
  m.count = count;
  double na = std::sqrt(s.aa), nb = std::sqrt(s.bb);
  if (count == 1) m.cosine_state = CosineState::kSingleElement;
  else if (na <= kEps && nb <= kEps) m.cosine_state = CosineState::kBothZero;
  else if (na <= kEps || nb <= kEps) m.cosine_state = CosineState::kOneZero;
  m.cosine = m.cosine_state == CosineState::kBothZero ? 1.0
             : m.cosine_state == CosineState::kOk     ? s.dot / (na * nb)
                                                      : std::nan("");
  double n = static_cast<double>(std::max<int64_t>(count, 1));
  m.euc_dist = std::sqrt(s.dd);
  m.max_abs_err = s.max_abs;
  m.max_rel_err = s.max_rel;
  m.rmse = std::sqrt(s.dd / n);
  m.mean_abs_err = s.sum_abs / n;
  m.rel_l2_err = nb > 0 ? m.euc_dist / nb : (m.euc_dist == 0 ? 0 : INFINITY);
  m.one_thousandth_ratio = static_cast<double>(s.below_1e3) / n;
  m.five_thousandths_ratio = static_cast<double>(s.below_5e3) / n;
  m.allclose_mismatches = s.mismatches;
  m.allclose_mismatch_fraction = static_cast<double>(s.mismatches) / n;
  m.nonfinite_position_mismatches = s.position_mismatch;
  auto side = [](double sum, double sq, double mx, double mn, int64_t finite, int64_t nan, int64_t inf, int64_t over) {
    SideStats st;
    st.max = finite > 0 ? mx : std::nan("");
    st.min = finite > 0 ? mn : std::nan("");
    st.mean = finite > 0 ? sum / static_cast<double>(finite) : std::nan("");
    st.norm = std::sqrt(sq);
    st.nan = nan;
    st.inf = inf;
    st.beyond_fp16 = over;
    return st;
  };
  m.a = side(s.a_sum, s.aa, s.a_max, s.a_min, s.finite_a, s.a_nan, s.a_inf, s.a_over);
  m.b = side(s.b_sum, s.bb, s.b_max, s.b_min, s.finite_b, s.b_nan, s.b_inf, s.b_over);
  return m;
}

}  // namespace

double element_as_double(const NpyView& v, size_t i) {
  double d = 0;
  decode(v, i, 1, &d);
  return d;
}

PairMetrics compute_metrics(const NpyView& a, const NpyView& b, Tolerance tol) {
  Acc s;
  const size_t count = std::min(a.count, b.count);
  bool orders_differ = a.fortran_order != b.fortran_order && a.shape.size() > 1;
  if (orders_differ) {
    std::vector<double> ca = c_order_copy(a), cb = c_order_copy(b);
    for (size_t i = 0; i < count; i += kChunk)
      accumulate_chunk(s, ca.data() + i, cb.data() + i, std::min(kChunk, count - i), tol);
    return finish(s, static_cast<int64_t>(count));
  }
  // Same order: every metric is order-independent, so walk storage order. Float64 input is used
  // in place; anything else is widened chunk by chunk into small buffers that stay in L1.
  alignas(64) double bufa[kChunk], bufb[kChunk];
  auto direct = [](const NpyView& v) {
    return v.dtype == DType::kF64 && !v.big_endian && reinterpret_cast<uintptr_t>(v.data) % alignof(double) == 0;
  };
  const bool a_direct = direct(a), b_direct = direct(b);
  for (size_t i = 0; i < count; i += kChunk) {
    size_t len = std::min(kChunk, count - i);
    const double* pa = a_direct ? reinterpret_cast<const double*>(a.data) + i : bufa;
    const double* pb = b_direct ? reinterpret_cast<const double*>(b.data) + i : bufb;
    if (!a_direct) decode_fast(a, i, len, bufa);
    if (!b_direct) decode_fast(b, i, len, bufb);
    accumulate_chunk(s, pa, pb, len, tol);
  }
  return finish(s, static_cast<int64_t>(count));
}

}  // namespace banjia::compare
