#include "rules/analyses/aten_ops.h"

#include <fmt/format.h>

#include "ops/coverage.h"

namespace banjia::rules {

namespace {
constexpr std::string_view kAten = "torch.ops.aten.";

const ops::OpsDataSet* newest_ops_data() {
  static const std::optional<ops::OpsDataSet> data = ops::load_ops_data("");
  return data ? &*data : nullptr;
}
}  // namespace

std::optional<std::string> aten_op_without_npu_kernel(std::string_view qualified) {
  if (!qualified.starts_with(kAten)) return std::nullopt;
  const ops::OpsDataSet* d = newest_ops_data();
  if (!d) return std::nullopt;
  std::string_view rest = qualified.substr(kAten.size());
  std::string_view base = rest.substr(0, rest.find('.'));
  if (base.empty()) return std::nullopt;
  // `torch.ops.aten.add.Tensor` pins an overload (`.default` is the one without a name); a bare
  // `torch.ops.aten.add` is the packet that picks one at the call, so any overload with a kernel counts.
  std::string overload;
  if (base.size() < rest.size()) {
    std::string_view tail = rest.substr(base.size() + 1);
    tail = tail.substr(0, tail.find('.'));
    overload = tail == "default" ? std::string(base) : fmt::format("{}.{}", base, tail);
  }
  if (overload.empty() ? !ops::matching_overloads(*d, base).empty() : d->kernel_overloads.contains(overload))
    return std::nullopt;
  if (overload.empty() ? ops::has_composite_functional_overload(*d, base) : d->composite_overloads.contains(overload))
    return std::nullopt;
  std::string name = overload.empty() ? std::string(base) : overload;
  return fmt::format("aten::{} has no NPU kernel in torch_npu {} (torch line {}): {}", name, d->version, d->torch_line,
                     d->dense_fallback_to_cpu ? "it runs on the CPU through the NPU fallback, with a copy each way"
                                              : "calling it on an NPU fails");
}

}  // namespace banjia::rules
