#include "trace/analysis/advisor_registry.h"

#include <stdexcept>
#include <string>

#include "trace/analysis/rule_needs.h"

namespace banjia::trace {

namespace {
using enum AdvisorStage;
constexpr AdvisorUnit kUnits[] = {
    // The tuning article's three patterns, each a scan of the whole trace.
    {"small-gemm-batching", trace_scan, advisors::small_gemm_batching},
    {"conv-in-loop", trace_scan, advisors::conv_in_loop},
    {"host-device-sync", trace_scan, advisors::host_device_sync},
    // Rules on the per-step breakdown and the NPU extras.
    {"host-bound", finished_summary, advisors::host_bound},
    {"excessive-sync", finished_summary, advisors::excessive_sync},
    {"comm-not-overlapped", finished_summary, advisors::comm_not_overlapped},
    {"recompilation", finished_summary, advisors::recompilation},
    {"aicpu-fallback", finished_summary, advisors::aicpu_fallback},
};
}  // namespace

std::span<const AdvisorUnit> advisor_units() { return kUnits; }

std::vector<BoundAdvisor> bind_advisors(const TraceRules& rules) {
  std::vector<BoundAdvisor> out;
  std::string problems;
  for (const AdvisorUnit& u : kUnits) {
    if (const AdvisorRule* r = rules.advisor(u.id)) out.push_back({&u, r});
    else problems += "\n  advisor '" + std::string(u.id) + "' has no [[rule]] in data/trace/advisors.toml";
  }
  for (const AdvisorRule& r : rules.advisors) {
    bool has_unit = false;
    for (const AdvisorUnit& u : kUnits) has_unit = has_unit || u.id == r.id;
    if (!has_unit) problems += "\n  rule '" + r.id + "' of data/trace/advisors.toml has no advisor in the code";
  }
  if (!problems.empty()) throw std::runtime_error("advisor rules and code disagree:" + problems);
  return out;
}

void run_advisor(const BoundAdvisor& a, const SummaryContext& ctx, const Summary& s, std::vector<Finding>& out) {
  if (!skip_reason(*a.rule, ctx.facts)) a.unit->run(ctx, s, *a.rule, out);
}

}  // namespace banjia::trace
