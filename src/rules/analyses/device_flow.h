// Which device and backend values of a file migrate may rewrite. A value is rewritten where it is
// used as a device (or backend), where it is stored under a name that holds devices, and where it is
// compared with such a name; a name holds devices when it says so (device, dev_type, backend), when
// it reaches a device position (x.to(name), torch.device(name)), when a device-only value or an
// availability-guarded choice is stored in it, or when it is assigned from such a name.
//
// The invariant: a comparison is rewritten only when every value stored under its name is rewritten
// too; otherwise both stay and the comparison is reported with the lines of the values that stay.
// Code that already names "npu" (or "hccl") beside "cuda" is device-agnostic there and stays as is.
#pragma once
#include <string>
#include <unordered_set>
#include <vector>

#include "rules/analyses/device_values.h"

namespace banjia::rules {

enum class ValueAction {
  rewrite,      // "cuda" -> "npu", "nccl" -> "hccl"
  unresolved,   // a CUDA value whose use cannot be followed: reported for a person to decide
  blocked,      // a comparison whose name also receives a value that stays: reported, both stay
  beside_npu,   // the table or comparison already handles the Ascend value: left as is, reported
  ignore,       // a message, a docstring, or an Ascend value
};

struct ValueDecision {
  ValueAction action = ValueAction::ignore;
  std::vector<uint32_t> blocking_lines;  // blocked: lines of the values under the same name that stay
};

// One decision per value, in the same order. Seeds: names the rest of the tree knows to hold
// devices or backends (device_values.h); they count as if this file said so.
std::vector<ValueDecision> decide_device_values(const PythonAnalysis& a, const std::vector<DeviceValue>& values,
                                                const FlowSeeds* seeds = nullptr);

// The names this file shows to hold devices and backends (for FlowSeeds of other files).
struct DeviceNames {
  std::unordered_set<std::string> device, backend;
};
DeviceNames device_names_of(const PythonAnalysis& a, const std::vector<DeviceValue>& values,
                            const FlowSeeds* seeds = nullptr);

}  // namespace banjia::rules
