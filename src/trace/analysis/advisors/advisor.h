// What every advisor unit shares: the signature the registry (advisor_registry.h) calls, and the way
// a firing becomes a finding. Each advisor is one file here, named after its id in
// data/trace/advisors.toml, and takes its thresholds from that rule.
#pragma once
#include <string>
#include <vector>

#include "trace/analysis/summary.h"
#include "trace/analysis/summary_context.h"

namespace banjia::trace::advisors {

// Reads the trace (through ctx) and the summary built so far, and appends a finding per firing. It
// is called only when the trace meets the rule's needs (rule_needs.h).
using AdvisorFn = void (*)(const SummaryContext& ctx, const Summary& s, const AdvisorRule& rule,
                           std::vector<Finding>& out);

// The finding of one firing: the rule's message (with `detail` after a colon), advice and source.
Finding make_finding(const AdvisorRule& r, const Summary& s, std::string detail, std::string evidence, double saving_us);

// One firing of a rule in one step. A pattern that repeats every step is one finding (merge_step_hits),
// not one per step: `what` says what fired (op and shape, or "" for a step-level rule).
struct StepHit {
  std::string what, step, evidence;
  double saving_us = 0;
};

// One finding per distinct `what`, in first-seen order: the steps it fired in, each step's evidence,
// and the summed saving (each step's saving is an upper bound for that step).
void merge_step_hits(const AdvisorRule& r, const Summary& s, const std::vector<StepHit>& hits, std::vector<Finding>& out);

// The name of step `st`, or "trace" for events outside any step.
std::string step_name(const Summary& s, int32_t st);

void small_gemm_batching(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void conv_in_loop(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void host_device_sync(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void host_bound(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void excessive_sync(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void comm_not_overlapped(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void recompilation(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);
void aicpu_fallback(const SummaryContext&, const Summary&, const AdvisorRule&, std::vector<Finding>&);

}  // namespace banjia::trace::advisors
