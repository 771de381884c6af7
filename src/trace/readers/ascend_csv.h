// torch_npu profiler CSV/JSON side files (ASCEND_PROFILER_OUTPUT): kernel_details.csv,
// step_trace_time.csv, op_statistic.csv, operator_details.csv, communication.json, communication_matrix.json. Columns are found by name because
// versions differ (Block Dim/Block Num, optional Device_id, Step Id/Step ID, trailing tabs, N/A).
#pragma once
#include <filesystem>

#include "trace/model/profiler_run.h"

namespace banjia::trace {

// Extras for the summary from whatever side files exist in `dir`; `t` supplies AI_CPU task data
// when kernel_details.csv is absent. Throws InputError naming a CSV that lacks a needed column.
NpuExtras read_npu_extras(const std::filesystem::path& dir, const TraceData& t);

// For outputs without trace_view.json (older torch_npu): device tasks rebuilt from
// kernel_details.csv, with one ProfilerStep#N marker per Step Id.
TraceData trace_from_kernel_details(const std::filesystem::path& dir);

}  // namespace banjia::trace
