// Error metrics between a tensor under test (A, msprobe's "NPU") and a reference (B, "Bench"),
// computed in one streaming pass with float64 accumulation. Definitions follow msprobe's
// compare (cosine, EucDist, MaxAbsErr, MaxRelativeErr with the epsilon rule, the two error ratios)
// plus RMSE, mean abs error and torch.testing's allclose mismatch count.
#pragma once
#include <cstdint>
#include <string>

#include "compare/analysis/metric_kernel.h"
#include "compare/readers/npy_format.h"

namespace banjia::compare {

struct SideStats {
  double max = 0, min = 0, mean = 0, norm = 0;  // over finite elements
  int64_t nan = 0, inf = 0;
  int64_t beyond_fp16 = 0;                      // finite |x| > 65504: would overflow in fp16
};

enum class CosineState { kOk, kBothZero, kOneZero, kSingleElement };

struct PairMetrics {
  int64_t count = 0;
  double cosine = 0;
  CosineState cosine_state = CosineState::kOk;
  double euc_dist = 0, max_abs_err = 0, max_rel_err = 0, rmse = 0, mean_abs_err = 0;
  double rel_l2_err = 0;  // ‖a − b‖ / ‖b‖: scale-free error used for growth across layers
  double one_thousandth_ratio = 0, five_thousandths_ratio = 0;
  int64_t allclose_mismatches = 0;
  double allclose_mismatch_fraction = 0;
  int64_t nonfinite_position_mismatches = 0;  // nan/inf in one tensor where the other has none
  SideStats a, b;
};

// Computes all metrics. Both views must hold the same number of elements (the caller checks
// shapes first). Arrays in different memory orders (C vs Fortran) are compared element by element
// in logical index order.
PairMetrics compute_metrics(const NpyView& a, const NpyView& b, Tolerance tol);

}  // namespace banjia::compare
