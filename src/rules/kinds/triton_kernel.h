// Match kind "triton-kernel": Triton kernels (functions decorated with triton.jit, triton.autotune or
// triton.heuristics) and their launches `kernel[grid](...)`, checked against the limits triton-ascend
// documents (data/triton/ascend_limits.toml, rules/analyses/triton_limits.h). `report` says what a rule of
// this kind reports:
//   kernel  one finding per kernel, over its decorators and its name (and one per other use of
//           triton.jit, such as `triton.jit(fn)`): it needs triton-ascend;
//   limit   each documented limit a kernel, a launch or a triton.Config is beyond, where it is, with
//           the limit's message and source (only what the code certainly does: constants, literals).
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct TritonKernelMatch {
  static constexpr std::string_view kName = "triton-kernel";
  std::string report;  // "kernel" or "limit"

  static TritonKernelMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

}  // namespace banjia::rules
