// The advisors of `banjia trace summary`: every rule of data/trace/advisors.toml paired with its unit
// (advisors/<id>.cpp). A new advisor is its rule, its unit and its line in advisor_registry.cpp. A rule
// without a unit, or a unit without a rule, is a load error: neither may silently never fire.
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "trace/analysis/advisors/advisor.h"
#include "trace/model/trace_rules.h"

namespace banjia::trace {

// When summarize() runs an advisor: on the trace, side by side with the op and device tables (it may
// read only the step names of the summary), or on the finished summary (breakdowns, NPU extras).
enum class AdvisorStage { trace_scan, finished_summary };

struct AdvisorUnit {
  std::string_view id;  // as data/trace/advisors.toml spells it
  AdvisorStage stage;
  advisors::AdvisorFn run;
};

// Every unit, in the order their findings are reported (within a stage).
std::span<const AdvisorUnit> advisor_units();

struct BoundAdvisor {
  const AdvisorUnit* unit;
  const AdvisorRule* rule;
};

// The rules of `rules` paired with their units, in advisor_units() order. Throws std::runtime_error
// naming every rule that has no unit and every unit that has no rule.
std::vector<BoundAdvisor> bind_advisors(const TraceRules& rules);

// Runs `a` when the trace meets its rule's needs; a rule it does not meet is listed in
// Summary::skipped_rules instead (summarize()).
void run_advisor(const BoundAdvisor& a, const SummaryContext& ctx, const Summary& s, std::vector<Finding>& out);

}  // namespace banjia::trace
