// Turns a command-line path into profiler runs: a Kineto JSON(.gz) file, a torch_npu `*_ascend_pt` /
// ASCEND_PROFILER_OUTPUT directory, an ascend_pytorch_profiler_*.db export, or a directory holding
// several of those (one per rank). Every file an analysis needs is read here.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "trace/model/profiler_run.h"

namespace banjia::trace {

// Expands directories of ranks into their rank inputs; a single trace stays one entry.
// Throws InputError for paths that are none of the supported inputs.
std::vector<std::filesystem::path> expand_inputs(const std::vector<std::string>& args);

// Reads one input: its trace (parsed on `threads` workers, 0: all cores), for torch_npu outputs the
// side files of ASCEND_PROFILER_OUTPUT, and the rank the profiler recorded. Throws InputError
// naming the file for anything unreadable.
ProfilerRun load(const std::filesystem::path& path, unsigned threads = 0);

// Reads the trace of one input with its host ops (a Kineto JSON file, a torch_npu directory's
// trace_view.json or .db export), without the NPU side files; `keep_input_types` as read_json_trace.
TraceData read_host_trace(const std::filesystem::path& path, unsigned threads, bool keep_input_types);

}  // namespace banjia::trace
