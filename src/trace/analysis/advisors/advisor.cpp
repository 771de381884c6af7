#include "trace/analysis/advisors/advisor.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace banjia::trace::advisors {

Finding make_finding(const AdvisorRule& r, const Summary& s, std::string detail, std::string evidence, double saving_us) {
  Finding f;
  f.file = s.file;
  f.rule = r.id;
  f.category = "performance";
  f.severity = parse_severity(r.severity).value_or(Severity::warning);
  f.fix = FixKind::advisory;
  f.message = r.message + (detail.empty() ? "" : ": " + detail);
  f.suggestion = r.advice;
  f.source = r.source;
  f.evidence = std::move(evidence);
  f.est_saving_us = std::max(0.0, saving_us);
  return f;
}

namespace {
std::string steps_text(const std::vector<const StepHit*>& hits) {
  if (hits.size() == 1) return hits[0]->step;
  constexpr size_t kNamed = 3;  // name a few steps; the count says how many in all
  std::string names;
  for (size_t i = 0; i < hits.size() && i < kNamed; ++i) names += (i ? ", " : "") + hits[i]->step;
  if (hits.size() > kNamed) names += ", ...";
  return fmt::format("{} steps ({})", hits.size(), names);
}
}  // namespace

void merge_step_hits(const AdvisorRule& r, const Summary& s, const std::vector<StepHit>& hits, std::vector<Finding>& out) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const StepHit*>> by_what;
  for (const auto& h : hits) {
    auto& group = by_what[h.what];
    if (group.empty()) order.push_back(h.what);
    group.push_back(&h);
  }
  for (const auto& what : order) {
    const auto& group = by_what[what];
    std::string evidence;
    double saving = 0;
    for (const StepHit* h : group) {
      evidence += (evidence.empty() ? "" : "; ") + h->evidence;
      saving += h->saving_us;
    }
    std::string where = steps_text(group);
    out.push_back(make_finding(r, s, what.empty() ? where : what + " in " + where, evidence, saving));
  }
}

std::string step_name(const Summary& s, int32_t st) { return st >= 0 ? s.steps[st].name : std::string("trace"); }

}  // namespace banjia::trace::advisors
