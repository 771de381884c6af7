// Reads which rank of which job a trace belongs to, as the profilers record it: Kineto's top-level
// "distributedInfo" {"rank", "world_size", "backend"} (torch.profiler writes it once
// torch.distributed is initialised) and torch_npu's profiler_info_<rank>.json {"rank_id", and the
// output directory of on_trace_ready, "config.common_config.on_trace_ready._dir_name"}.
#pragma once
#include <filesystem>
#include <string_view>

#include "trace/model/rank_identity.h"

namespace banjia::trace {

// Reads a Kineto "distributedInfo" object (its JSON text); fields that are absent or not integers stay empty.
RankIdentity parse_distributed_info(std::string_view json);

// Reads profiler_info*.json of a torch_npu output: `output_dir` is the ASCEND_PROFILER_OUTPUT
// directory; the file lies next to it (in the *_ascend_pt directory) or inside it.
RankIdentity torch_npu_identity(const std::filesystem::path& output_dir);

}  // namespace banjia::trace
