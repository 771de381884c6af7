#include "trace/report/advisor_page.h"

#include <fmt/format.h>

#include "common/errors.h"
#include "trace/analysis/rule_needs.h"
#include "trace/model/trace_rules.h"

namespace banjia::trace {

namespace {
std::string page(const AdvisorRule& r) {
  std::string o = fmt::format("# {}\n\n{}\n\n| | |\n|---|---|\n", r.id, r.message);
  o += "| Family | trace advisor (`banjia trace summary`) |\n";
  o += fmt::format("| Severity | `{}` |\n", r.severity);
  o += "| Defined in | `data/trace/advisors.toml` |\n";
  o += "\n## What it needs from a trace\n\n";
  if (r.needs.empty()) o += "Nothing beyond host events: it runs on every trace.\n";
  for (Need n : r.needs) o += fmt::format("- `{}`: {}\n", to_string(n), need_description(n));
  if (!r.needs.empty())
    o += "\nOn a trace without it the rule does not run; `trace summary` lists it under skipped rules with the reason.\n";
  if (!r.params.empty()) {
    o += "\n## Thresholds\n\n| Parameter | Value |\n|---|---|\n";
    for (const auto& [name, value] : r.params) o += fmt::format("| `{}` | {} |\n", name, value);
  }
  o += fmt::format("\n## Advice\n\n{}\n", r.advice);
  o += fmt::format("\n## Example\n\n{}\n\nEvidence of the finding:\n\n```text\n{}\n```\n", r.example_trace, r.example_evidence);
  o += fmt::format("\n## Source\n\n{}\n", r.source);
  return o;
}
}  // namespace

std::string advisor_page(std::string_view id) {
  const TraceRules& rules = trace_rules();
  if (const AdvisorRule* r = rules.advisor(id)) return page(*r);
  std::string known;
  for (const auto& r : rules.advisors) known += (known.empty() ? "" : ", ") + r.id;
  throw InputError(std::string(id), "no such advisor rule (known: " + known + ")");
}

}  // namespace banjia::trace
