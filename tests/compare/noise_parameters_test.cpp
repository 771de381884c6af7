// The noise model's precisions: unit roundoffs are 2^-p for p significand bits (IEEE 754 and the
// bfloat16/TF32 formats), and a run's float32 precision follows its recorded flags and device.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "compare/noise_parameters.h"

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

}  // namespace
}  // namespace banjia::compare
