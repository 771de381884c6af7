// The limits triton-ascend documents for Triton kernels and launches (data/triton/ascend_limits.toml),
// as the `triton-kernel` match kind checks them (kinds/triton_kernel.h). Each limit carries the
// message and source its findings show.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace banjia::rules {

struct TritonLimit {
  enum class Check { grid_max, keyword, in_loop, transpose, dtype, string_arg, asm_constraints, call };
  std::string id;
  Check check = Check::call;
  std::vector<std::string> names;     // dotted names as the imports resolve them; "launch": kernel[grid](...)
  std::vector<std::string> methods;   // tensor methods with the same limit (x.trans(...))
  std::vector<std::string> keywords;  // check keyword
  std::vector<std::string> allowed;   // values (keyword) or characters (asm-constraints) that are fine
  std::vector<std::string> values;    // check string-arg: the literals that are not supported
  int64_t value = 0;                  // grid-max: most programs; transpose: most axes
  std::string message, source;

  bool names_has(std::string_view n) const;
};

// The limits, parsed once from the embedded data file. Throws InputError when it is malformed.
const std::vector<TritonLimit>& triton_limits();

}  // namespace banjia::rules
