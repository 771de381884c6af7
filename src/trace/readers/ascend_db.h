// torch_npu's SQLite export (ascend_pytorch_profiler_{rank}.db): names are interned in STRING_IDS.
// Tables read: TASK + COMPUTE_TASK_INFO (device tasks), COMMUNICATION_OP, CANN_API, PYTORCH_API,
// STEP_TIME, OVERLAP_ANALYSIS. Times are integer ns already, kept exact.
#pragma once
#include <filesystem>

#include "trace/model/trace_model.h"

namespace banjia::trace {

// Throws InputError naming the file when it is not SQLite or lacks the TASK / STRING_IDS tables.
TraceData read_ascend_db(const std::filesystem::path& path);

}  // namespace banjia::trace
