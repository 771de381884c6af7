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

// Reads and summarises one input (with NPU CSV/DB extras and advisor findings).
Summary analyse_input(const std::filesystem::path& path, const SummaryOptions& opt);

}  // namespace banjia::trace
