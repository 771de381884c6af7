// torch_npu's communication side files (ASCEND_PROFILER_OUTPUT): communication.json (each
// operation's times and its traffic per transport) and communication_matrix.json (traffic per link).
#pragma once
#include <filesystem>

#include "trace/model/profiler_run.h"

namespace banjia::trace {

// communication.json: the operations' count and elapsed time, each operation as a CollectiveCall
// ("step/op@group"), and the traffic per transport summed over them. Nothing when the file is
// absent; InputError for a file that is not JSON of that shape.
void read_communication(const std::filesystem::path& p, NpuExtras& x);

// communication_matrix.json: the traffic of each link per group, kind of operation and transport,
// summed over steps (docs/trace.md, Cluster view).
void read_communication_matrix(const std::filesystem::path& p, NpuExtras& x);

}  // namespace banjia::trace
