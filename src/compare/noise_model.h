// compare's noise model: for every numerically compared entry, the difference two runs that differ
// only in precision and reduction order should show (its floor), the error it does show, and the
// verdict that follows; then the suspect (the first forward module whose error grows beyond its
// floor by a clear factor) and the parameter gradients ranked by the same measure.
// The model and its parameters: data/compare/noise.toml; docs/compare.md explains it.
#pragma once
#include <cstdint>
#include <string_view>

namespace banjia::compare {

struct Dump;
struct CompareResult;

enum class Phase { kForward, kBackward, kParamGrad };
std::string_view phase_name(Phase p);

struct NoiseAssessment {
  bool assessed = false;  // false: the verdict is structural (shape, nan/inf positions, error, skipped)
  Phase phase = Phase::kForward;
  double error = 0;        // relative error; for a near-zero tensor, its error over its layer's scale
  double floor = 0;        // the error noise alone may show
  double ratio = 0;        // error / floor (infinite when the floor is 0 and the error is not)
  double local_floor = 0;  // rounding and accumulation alone, before the inputs' error
  double input_error = 0;  // largest error of the entries before it in its pass
  double unit_roundoff = 0;
  int64_t reduction = 0;
  bool near_zero = false;        // its RMS is below its floor times its layer's scale
  bool ill_conditioned = false;  // training-mode BatchNorm over too few values per channel
};

// Decides the status of every entry scored numerically (EntryResult::numeric) and fills
// CompareResult::suspect and ::gradient_ranking. Entries must be in A's execution order.
void apply_noise_model(const Dump& a, const Dump& b, CompareResult& r);

}  // namespace banjia::compare
