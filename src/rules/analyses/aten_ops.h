// Direct calls of aten ops (`torch.ops.aten.X`, `torch.ops.aten.X.overload`) judged against the NPU
// operator data of the newest torch_npu branch (data/ops, as `trace ops` reads it).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace banjia::rules {

// The finding's message when `qualified` names an aten op (or overload) without an NPU kernel that
// torch does not implement from other ops either; nullopt for ops with a kernel, composite ops and
// names that are not an op (`torch.ops.aten` itself).
std::optional<std::string> aten_op_without_npu_kernel(std::string_view qualified);

}  // namespace banjia::rules
