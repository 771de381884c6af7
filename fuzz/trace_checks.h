// Properties every trace a reader returns must have, whatever the input (shared by the trace
// harnesses): every column one entry per event, every complete event timed with a non-negative
// duration, times within +-kMaxTimeNs (so ts + dur and differences of ends cannot overflow), string
// ids inside the pool.
#pragma once
#include <cstddef>

#include "fuzz_check.h"
#include "trace/readers/decimal_time.h"
#include "trace/model/trace_model.h"

struct TraceShape {  // what two reads of the same bytes must agree on
  size_t events, flows, processes, missing, negative;
  bool operator==(const TraceShape&) const = default;
};

inline TraceShape check_trace(const banjia::trace::TraceData& t) {
  using namespace banjia::trace;
  size_t n = t.size();
  FUZZ_CHECK(n > 0, "a trace that loads has complete events");
  for (size_t s : {t.name.size(), t.cat.size(), t.shape.size(), t.task_type.size(), t.dur.size(), t.pid.size(),
                   t.tid.size(), t.corr.size(), t.ext_id.size(), t.bytes.size(), t.kind.size()})
    FUZZ_CHECK(s == n, "all event columns have one entry per event");
  size_t pool = t.strings.size();
  for (size_t i = 0; i < n; ++i) {
    FUZZ_CHECK(t.ts[i] != kNone, "complete events have a time");
    FUZZ_CHECK(t.dur[i] >= 0, "durations are non-negative");
    FUZZ_CHECK(t.ts[i] >= -kMaxTimeNs && t.ts[i] <= kMaxTimeNs && t.dur[i] <= kMaxTimeNs,
               "times within +-kMaxTimeNs (so ts + dur cannot overflow)");
    FUZZ_CHECK(t.name[i] < pool && t.cat[i] < pool && t.shape[i] < pool && t.task_type[i] < pool,
               "string ids inside the pool");
    (void)t.name_of(i);
  }
  // The "Input type" column exists only when it was asked for (trace ops), then one id per event.
  FUZZ_CHECK(t.input_type.size() == (t.keep_input_types ? n : 0), "the input-type column is kept only when asked");
  for (size_t i = 0; i < t.input_type.size(); ++i) FUZZ_CHECK(t.input_type[i] < pool, "input-type ids inside the pool");
  for (const Flow& f : t.flows) {
    FUZZ_CHECK(f.ph == 's' || f.ph == 'f', "flows are starts or finishes");
    FUZZ_CHECK(f.cat < pool && (!f.string_id || f.id < pool), "flow string ids inside the pool");
  }
  return {n, t.flows.size(), t.process_names.size(), t.missing_fields, t.negative_durations};
}
