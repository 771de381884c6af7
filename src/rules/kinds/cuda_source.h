// Match kinds of CUDA/C++ sources: "cuda-kernel" (__global__ functions) and "op-registration"
// (PYBIND11_MODULE, TORCH_LIBRARY). cuda_source_scanner.cpp matches them on the file as a whole, so
// they have no Python needles or matcher.
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct CudaKernelMatch {
  static constexpr std::string_view kName = "cuda-kernel";
  static CudaKernelMatch parse(const MatchFields&) { return {}; }
};

struct OpRegistrationMatch {
  static constexpr std::string_view kName = "op-registration";
  static OpRegistrationMatch parse(const MatchFields&) { return {}; }
};

}  // namespace banjia::rules
