#include "compare/analysis/metrics.h"

#include "compare/analysis/metric_kernel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace banjia::compare {

namespace {

constexpr size_t kChunk = 2048;

// Pairs of doubles, chunk by chunk: SIMD for finite chunks, the nan/inf-aware scalar path otherwise.
template <class T>
void accumulate(MetricAcc& s, const std::byte* a, const std::byte* b, size_t len, const Tolerance& tol) {
  for (size_t i = 0; i < len; i += kChunk) {
    size_t n = std::min(kChunk, len - i);
    if (accumulate_finite<T>(s, a + i * sizeof(T), b + i * sizeof(T), n, tol)) continue;
    for (size_t j = i; j < i + n; ++j) accumulate_checked(s, load_element<T>(a, j), load_element<T>(b, j), tol);
  }
}

const std::byte* bytes_of(const std::vector<double>& v) { return reinterpret_cast<const std::byte*>(v.data()); }

// Whole array in C (row-major) order, for pairing with an array stored in the other order.
std::vector<double> c_order_copy(const NpyView& v) {
  std::vector<double> flat(v.count);
  decode_elements(v, 0, v.count, flat.data());
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

PairMetrics finish(const MetricAcc& s, int64_t count) {
  PairMetrics m;
  m.count = count;
  double na = std::sqrt(s.aa), nb = std::sqrt(s.bb);
  constexpr double kEps = std::numeric_limits<double>::epsilon();  // msprobe's "norm is zero" bound
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

PairMetrics compute_metrics(const NpyView& a, const NpyView& b, Tolerance tol) {
  MetricAcc s;
  const size_t count = std::min(a.count, b.count);
  if (a.fortran_order != b.fortran_order && a.shape.size() > 1) {
    std::vector<double> ca = c_order_copy(a), cb = c_order_copy(b);
    accumulate<double>(s, bytes_of(ca), bytes_of(cb), count, tol);
    return finish(s, static_cast<int64_t>(count));
  }
  // Same order: every metric is order-independent, so walk storage order. Little-endian float32
  // or float64 pairs are read in place (mmap, no copy); anything else is widened to float64 chunk
  // by chunk into small buffers that stay in L1.
  auto native = [](const NpyView& v, DType t) { return v.dtype == t && !v.big_endian; };
  if (native(a, DType::kF32) && native(b, DType::kF32)) {
    accumulate<float>(s, a.data, b.data, count, tol);
  } else if (native(a, DType::kF64) && native(b, DType::kF64)) {
    accumulate<double>(s, a.data, b.data, count, tol);
  } else {
    alignas(64) double bufa[kChunk], bufb[kChunk];
    for (size_t i = 0; i < count; i += kChunk) {
      size_t len = std::min(kChunk, count - i);
      decode_elements(a, i, len, bufa);
      decode_elements(b, i, len, bufb);
      accumulate<double>(s, reinterpret_cast<const std::byte*>(bufa), reinterpret_cast<const std::byte*>(bufb), len,
                         tol);
    }
  }
  return finish(s, static_cast<int64_t>(count));
}

}  // namespace banjia::compare
