// The noise model's precisions: unit roundoffs are 2^-p for p significand bits (IEEE 754 and the
// bfloat16/TF32 formats), and a run's float32 precision follows its recorded flags and device.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "compare/analysis/noise_model.h"
#include "compare/analysis/noise_parameters.h"

namespace banjia::compare {
namespace {

TEST(NoiseParameters, UnitRoundoffIsHalfTheMachineEpsilon) {
  EXPECT_EQ(unit_roundoff("float32"), std::ldexp(1.0, -24));
  EXPECT_EQ(unit_roundoff("torch.float16"), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff("bfloat16"), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff("float64"), std::ldexp(1.0, -53));
  EXPECT_EQ(unit_roundoff("tf32"), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff("int64"), 0.0);
  EXPECT_EQ(unit_roundoff("bool"), 0.0);
  EXPECT_EQ(unit_roundoff("no-such-dtype"), 0.0);
}

TEST(NoiseParameters, Float32PrecisionFollowsTheRecordedFlags) {
  using Meta = std::map<std::string, std::string>;
  EXPECT_EQ(float32_compute_precision(Meta{{"device", "cpu"}}), "float32");
  EXPECT_EQ(float32_compute_precision(Meta{}), "float32");
  // cuDNN's TF32 convolutions are on by default: a CUDA run that records no flag may use them.
  EXPECT_EQ(float32_compute_precision(Meta{{"device", "cuda:0"}}), "tf32");
  EXPECT_EQ(float32_compute_precision(
                Meta{{"device", "cuda:0"}, {"cuda_matmul_allow_tf32", "false"}, {"cudnn_allow_tf32", "false"}}),
            "float32");
  EXPECT_EQ(float32_compute_precision(Meta{{"device", "cuda:0"}, {"cuda_matmul_allow_tf32", "true"}}), "tf32");
  EXPECT_EQ(float32_compute_precision(Meta{{"device", "npu:0"}}), "tf32");
  EXPECT_EQ(float32_compute_precision(
                Meta{{"device", "npu:0"}, {"npu_conv_allow_hf32", "false"}, {"npu_matmul_allow_hf32", "false"}}),
            "float32");
  EXPECT_EQ(float32_compute_precision(Meta{{"device", "cpu"}, {"float32_matmul_precision", "medium"}}), "bfloat16");
  EXPECT_EQ(float32_compute_precision(Meta{{"device", "cpu"}, {"float32_matmul_precision", "high"}}), "tf32");
}

TEST(NoiseModel, MasksAndIndicesAreRecognisedByConstruction) {
  auto stats = [](double min, double max, int64_t nan = 0) {
    SummaryStats s;
    s.min = min;
    s.max = max;
    s.nan_count = nan;
    return s;
  };
  const double inf = std::numeric_limits<double>::infinity();
  // torch.finfo(dtype).min: what masked_fill(mask, finfo.min) writes
  EXPECT_TRUE(is_mask_or_index("float32", stats(-3.4028234663852886e38, 0)));
  EXPECT_TRUE(is_mask_or_index("float16", stats(-65504.0, 0)));
  EXPECT_TRUE(is_mask_or_index("bfloat16", stats(-3.3895313892515355e38, 0)));
  EXPECT_TRUE(is_mask_or_index("float32", stats(-inf, 0)));
  EXPECT_TRUE(is_mask_or_index("int64", stats(0, 127)));
  EXPECT_TRUE(is_mask_or_index("bool", stats(0, 1)));
  // data, and overflows (both signs, or nan), are not masks
  EXPECT_FALSE(is_mask_or_index("float32", stats(-3.0, 2.0)));
  EXPECT_FALSE(is_mask_or_index("float16", stats(-30000.0, 0)));
  EXPECT_FALSE(is_mask_or_index("float16", stats(-inf, inf)));
  EXPECT_FALSE(is_mask_or_index("float32", stats(-inf, 1.0, 3)));
}

}  // namespace
}  // namespace banjia::compare
