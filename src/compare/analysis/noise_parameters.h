// The parameters of compare's noise model (data/compare/noise.toml) and the precision each side of a
// comparison computed in, read from the dump's run metadata.
#pragma once
#include <map>
#include <string>

namespace banjia::compare {

struct NoiseParameters {
  std::map<std::string, double> unit_roundoff;  // "float32", "tf32", "bfloat16", ...
  std::string cuda_default_f32, npu_default_f32, matmul_high_f32, matmul_medium_f32;
  double round = 2, accumulate = 2;
  int64_t min_reduction = 16, parameter_reduction = 4096;
  double growth_forward = 2, growth_backward = 6, growth_param = 4;
  double clear_factor = 3;
  double history_factor = 3;
  int64_t batchnorm_min_values = 16;
};

const NoiseParameters& noise_parameters();

// Unit roundoff of a dtype or precision name ("bfloat16", "torch.float16", "tf32"); 0 for integer and
// unknown dtypes (they compare exactly).
double unit_roundoff(const std::string& name);

// The coarsest precision a side's float32 entries may have been computed in, from its metadata
// ("float32_matmul_precision", "cuda_matmul_allow_tf32", "cudnn_allow_tf32", "npu_conv_allow_hf32",
// "npu_matmul_allow_hf32", "device"): a precision name, or "float32" when nothing is reduced.
std::string float32_compute_precision(const std::map<std::string, std::string>& meta);

}  // namespace banjia::compare
