// Match kinds "device-string" ("cuda", "cuda:N", f"cuda:{i}" in a device position) and
// "backend-string" ("nccl"). One matcher serves both: one pass finds every device and backend value
// and decides each through the names it flows into (device_flow.h).
#pragma once
#include "rules/core/kind.h"

namespace banjia::rules {

struct DeviceStringMatch {
  static constexpr std::string_view kName = "device-string";
  // "" (the value to rewrite), "unresolved" (a value banjia cannot follow) or "beside-npu" (code
  // that already handles the NPU value).
  std::string position;

  static DeviceStringMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
  static void match(const MatchContext& c, std::vector<PyMatch>& out);
};

// Matched by DeviceStringMatch::match.
struct BackendStringMatch {
  static constexpr std::string_view kName = "backend-string";
  std::string position;  // "backend" (a backend argument) or "other"

  static BackendStringMatch parse(const MatchFields& m);
  static void add_needles(const RuleCatalog& rules, PythonNeedles& needles);
};

}  // namespace banjia::rules
