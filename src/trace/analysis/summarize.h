// summarize(): one run's summary (summary.h) from the run in memory: step windows and the device
// time breakdown, the op and kernel tables, the NPU extras, the communication and the advisors.
#pragma once
#include "trace/analysis/summary.h"
#include "trace/model/profiler_run.h"

namespace banjia::trace {

// Computes the summary of one run from memory alone (the readers have read every file it needs):
// tables, breakdowns, the run's NPU extras and all advisor findings.
Summary summarize(const ProfilerRun& run, const SummaryOptions& opt = {});

}  // namespace banjia::trace
