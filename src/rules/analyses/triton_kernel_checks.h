// The checks of the `triton-kernel` match kind (kinds/triton_kernel.h) on one file: the kernels it
// defines, and each documented triton-ascend limit (triton_limits.h) a kernel body, a launch or a
// triton.Config call is beyond.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "rules/analyses/triton_limits.h"
#include "rules/core/match.h"

namespace banjia::rules {

struct TritonKernel {
  std::string_view name;
  uint32_t first_sig = 0;   // the '@' of its first Triton decorator
  uint32_t name_sig = 0;    // the def's name
  uint32_t header = 0;      // statement index of the def
  uint32_t body_first = 0, body_last = 0;  // statement indices; body_first > body_last: no body
};

// A finding of a limit: where (sig indices) and what the code there is (for the message).
struct TritonProblem {
  const TritonLimit* limit = nullptr;
  uint32_t first_sig = 0, last_sig = 0;
  std::string what;
};

// The kernels of the file, in source order; `other_uses` gets the sig ranges of uses of triton.jit,
// triton.autotune or triton.heuristics that decorate no def (`triton.jit(fn)`).
std::vector<TritonKernel> find_triton_kernels(const PythonAnalysis& a, std::vector<std::pair<uint32_t, uint32_t>>& other_uses);

// Every limit the file's kernels, launches and triton.Config calls are beyond.
std::vector<TritonProblem> triton_problems(const PythonAnalysis& a, const std::vector<TritonKernel>& kernels,
                                           const std::vector<TritonLimit>& limits);

}  // namespace banjia::rules
