// torch_npu profiler side files as `trace summary` reads them from ASCEND_PROFILER_OUTPUT
// (trace/ascend_csv): kernel_details.csv (also rebuilt into a trace when trace_view.json is absent),
// step_trace_time.csv, op_statistic.csv, communication.json and communication_matrix.json. Each input
// is written as each of the five files, alone in its own directory, so a seed of one kind drives its
// own reader.
// Properties: only InputError escapes; every number that reaches the summary is finite; the rebuilt
// trace's events start within +-kMaxTimeNs, have non-negative durations and end by 2 kMaxTimeNs
// (so ts + dur, and the difference of two ends, cannot overflow); the same for collectives; traffic
// sums are finite and non-negative.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "fuzz_check.h"
#include "fuzz_files.h"
#include "trace/readers/ascend_csv.h"
#include "trace/readers/decimal_time.h"

using namespace banjia;
using namespace banjia::trace;

namespace {
const FuzzDir dir("ascend_csv");
constexpr const char* kFiles[] = {"kernel/kernel_details.csv", "step/step_trace_time.csv",
                                  "op/op_statistic.csv", "comm/communication.json",
                                  "matrix/communication_matrix.json"};

bool finite_traffic(const Traffic& t) {
  return std::isfinite(t.size_mb) && std::isfinite(t.time_ms) && t.size_mb >= 0 && t.time_ms >= 0 &&
         std::isfinite(t.bandwidth_gbps());
}

void check(const NpuExtras& x) {
  FUZZ_CHECK(std::isfinite(x.ai_cpu_us) && x.ai_cpu_slow_tasks <= x.ai_cpu_tasks, "AI_CPU totals");
  for (const auto& [core, us] : x.core_time_us) FUZZ_CHECK(!std::isnan(us), "core times are numbers");
  for (const auto& r : x.step_trace) {
    for (double v : {r.computing, r.comm_not_overlapped, r.overlapped, r.communication, r.free, r.stage, r.bubble})
      FUZZ_CHECK(std::isfinite(v), "step trace values are finite");
    FUZZ_CHECK(!r.preparing || std::isfinite(*r.preparing), "preparing is finite");
  }
  for (const auto& r : x.op_statistic) FUZZ_CHECK(std::isfinite(r.total_us) && std::isfinite(r.self_us), "op times finite");
  FUZZ_CHECK(!std::isnan(x.communication_elapse_ms), "communication time is a number");
  for (const auto& c : x.collectives)
    FUZZ_CHECK(c.start_ns >= -kMaxTimeNs && c.start_ns <= kMaxTimeNs && c.dur_ns >= 0 && c.dur_ns <= kMaxTimeNs,
               "collectives start within +-kMaxTimeNs and last at most kMaxTimeNs");
  for (const auto& [transport, t] : x.transport_traffic) FUZZ_CHECK(finite_traffic(t), "transport traffic is finite");
  for (const auto& l : x.links) FUZZ_CHECK(finite_traffic(l.traffic), "link traffic is finite");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* f : kFiles) dir.write(f, text);
  TraceData rebuilt;
  try {
    rebuilt = trace_from_kernel_details(dir.root() / "kernel");
    FUZZ_CHECK(rebuilt.size() > 0 && rebuilt.kind.size() == rebuilt.size(), "rebuilt trace has events");
    for (size_t i = 0; i < rebuilt.size(); ++i)
      // Step markers span their kernels, so their durations may exceed kMaxTimeNs; their ends may not.
      FUZZ_CHECK(rebuilt.ts[i] >= -kMaxTimeNs && rebuilt.ts[i] <= kMaxTimeNs && rebuilt.dur[i] >= 0 &&
                     rebuilt.dur[i] <= 2 * kMaxTimeNs - rebuilt.ts[i],
                 "rebuilt events start within +-kMaxTimeNs and end by 2 kMaxTimeNs");
  } catch (const InputError&) {
  }
  for (const char* sub : {"kernel", "step", "op", "comm", "matrix"}) {
    try {
      check(read_npu_extras(dir.root() / sub, rebuilt));  // without kernel_details.csv: AI_CPU tasks from the trace
    } catch (const InputError&) {
    }
  }
  return 0;
}
