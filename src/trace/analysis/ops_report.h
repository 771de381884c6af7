// `trace ops`: every aten op a trace executed, joined with the NPU operator coverage data
// (ops_coverage.h). Rows are (op name, status): the calls of one op inside an op with an NPU kernel
// and its calls on their own are told apart.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ops/coverage.h"
#include "trace/model/trace_model.h"

namespace banjia::trace {

struct OpCoverageRow {
  std::string name;  // "aten::add_"
  ops::OpStatus status = ops::OpStatus::unknown;
  size_t calls = 0;
  size_t own_calls = 0;  // calls not inside another op that owns them (a kernel or a fallback)
  int64_t self_ns = 0;
  std::set<std::string> dtypes;       // of every tensor input seen
  std::vector<std::string> overloads; // the data's overloads with a kernel matching the name
  std::set<std::string> inside;       // for inside_npu_kernel: the enclosing ops with a kernel
  std::string limit_api;              // the documented dtype limit applied
  std::vector<std::string> limit_dtypes;  // and the dtypes it allows
};

struct OpsCoverage {
  std::string file;
  std::string time_basis;  // "steps" (ProfilerStep windows) or "span" (the trace's first to last event)
  size_t steps = 0;
  int64_t step_ns = 0;
  bool input_types = false;  // some event of the trace has a Kineto "Input type" list
  std::vector<OpCoverageRow> rows;  // by self time, largest first

  double share(int64_t ns) const { return step_ns > 0 ? static_cast<double>(ns) / static_cast<double>(step_ns) : 0.0; }
  // Distinct op names with calls judged off the NPU on their own (callees of a fallback not counted)
  // and the self time of every off-NPU call (callees of a fallback included: they run on the CPU).
  size_t ops_off_npu() const;
  int64_t self_ns_off_npu() const;
};

// `t` must be classified (readers do it). Throws InputError when the trace has no aten host ops.
OpsCoverage op_coverage(const TraceData& t, const ops::OpsDataSet& data);

}  // namespace banjia::trace
