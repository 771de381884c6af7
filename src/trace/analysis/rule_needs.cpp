#include "trace/analysis/rule_needs.h"

namespace banjia::trace {

bool TraceFacts::has(Need n) const {
  switch (n) {
    case Need::device: return device;
    case Need::device_kernels: return device_kernels;
    case Need::input_shapes: return input_shapes;
    case Need::ascend: return ascend;
    case Need::communication: return communication;
  }
  return false;
}

std::string_view need_description(Need n) {
  switch (n) {
    case Need::device: return "device activity (kernels, copies or communication): not a CPU-only trace";
    case Need::device_kernels: return "device compute kernels";
    case Need::input_shapes: return "host ops with Kineto's \"Input Dims\" (profiled with record_shapes=True)";
    case Need::ascend: return "a torch_npu (Ascend) profile";
    case Need::communication: return "collective or point-to-point communication";
  }
  return "";
}

std::optional<std::string> skip_reason(const AdvisorRule& rule, const TraceFacts& facts) {
  for (Need n : rule.needs) {
    if (facts.has(n)) continue;
    // Every device-side need is unmet on a trace without device activity; say the cause once.
    bool device_side = n == Need::device || n == Need::device_kernels || n == Need::communication;
    if (device_side && !facts.device) return "CPU-only trace: device rules not applicable";
    switch (n) {
      case Need::device_kernels: return "no device kernels recorded";
      case Need::input_shapes:
        // torch_npu writes "Input Dims" as text ("32,3,224,224;\r\n64,3,11,11;...") and the .db
        // export keeps them in PYTORCH_API.inputShapes; the readers keep Kineto's lists only.
        return facts.ascend ? "input shapes of torch_npu profiles are not read (only Kineto's \"Input Dims\" lists)"
                            : "no input shapes recorded (profile with record_shapes=True)";
      case Need::ascend: return "not an Ascend profile";
      case Need::communication: return "no communication recorded";
      case Need::device: break;  // handled above
    }
  }
  return std::nullopt;
}

}  // namespace banjia::trace
