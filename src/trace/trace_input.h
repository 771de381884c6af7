// Turns a command-line path into one or more analysed traces: a Kineto JSON(.gz) file, a torch_npu
// `*_ascend_pt` / ASCEND_PROFILER_OUTPUT directory, an ascend_pytorch_profiler_*.db export, or a
// directory holding several of those (one per rank).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "trace/summary.h"

namespace banjia::trace {

// Expands directories of ranks into their rank inputs; a single trace stays one entry.
// Throws InputError for paths that are none of the supported inputs.
std::vector<std::filesystem::path> expand_inputs(const std::vector<std::string>& args);

// Reads the trace of one input with its host ops (a Kineto JSON file, a torch_npu directory's
// trace_view.json or .db export), without the NPU CSV extras; `keep_input_types` as read_json_trace.
TraceData read_host_trace(const std::filesystem::path& path, unsigned threads, bool keep_input_types);

// Reads and summarises one input (with NPU CSV/DB extras and advisor findings).
Summary analyse_input(const std::filesystem::path& path, const SummaryOptions& opt);

}  // namespace banjia::trace
