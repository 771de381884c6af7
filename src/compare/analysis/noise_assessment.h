// What the noise model (noise_model.h) says of one compared entry: its error beside the floor that
// rounding noise alone may show. Each entry of a comparison carries one.
#pragma once
#include <cstdint>
#include <string_view>

namespace banjia::compare {

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
  // The largest ratio earlier entries of the same role showed (the same key with its layer indices
  // and call counts ignored, e.g. transformer.h.*.ln_2.forward.output); -1 when none came before.
  double history_ratio = -1;
  bool history_jump = false;  // above its floor and more than history_factor x its history: fail
  // e_in came from the module's own forward and output gradient (its input gradients and parameter
  // gradients), not from every entry before it
  bool own_inputs = false;
  bool sketched = false;  // error estimated from count sketches (statistics with sketches on both sides)
};

// Whether one side of an entry is an index tensor (integer or bool) or a mask filled with -inf or its
// dtype's lowest value (no nan, no +inf). An entry both of whose sides are is compared, but never
// sets another entry's scale or input error, and is not reported as the first non-finite entry.

}  // namespace banjia::compare
