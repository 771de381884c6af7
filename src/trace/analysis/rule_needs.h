// Which advisor rules a trace can support. A rule names what it needs (`needs` in
// data/trace/advisors.toml); the trace's facts say what it has; a rule with an unmet need is not run
// and the summary lists it under skipped_rules with the reason, so that "no finding" is never
// mistaken for "checked and fine".
#pragma once
#include <optional>
#include <string>

#include "trace/model/trace_rules.h"

namespace banjia::trace {

struct TraceFacts {
  bool device = false;          // any device event: kernel, memcpy, memset, communication
  bool device_kernels = false;  // any device compute kernel
  bool input_shapes = false;    // any host op with recorded input shapes
  bool ascend = false;          // a torch_npu profile
  bool communication = false;   // communication on the device, or torch_npu's communication overlap events
  bool has(Need n) const;
};

// What a trace holds when it meets `n`, for the rule pages.
std::string_view need_description(Need n);

// The reason `rule` cannot run on a trace with `facts` (its first unmet need), or nullopt when it can.
std::optional<std::string> skip_reason(const AdvisorRule& rule, const TraceFacts& facts);

}  // namespace banjia::trace
