// Which distributed job and rank a trace belongs to, as the profilers record it: Kineto's top-level
// "distributedInfo" {"rank", "world_size", "backend"} (torch.profiler writes it once
// torch.distributed is initialised) and torch_npu's profiler_info_<rank>.json {"rank_id", and the
// output directory of on_trace_ready, "config.common_config.on_trace_ready._dir_name"}. The cluster
// view is made only of traces that are distinct ranks of one job.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia::trace {

struct RankIdentity {
  std::optional<int64_t> rank, world_size;
  std::string job;  // what names the job where the profiler records it (torch_npu output directory), or ""
};

// Reads a Kineto "distributedInfo" object (its JSON text); fields that are absent or not integers stay empty.
RankIdentity parse_distributed_info(std::string_view json);

// Reads profiler_info*.json of a torch_npu output: `output_dir` is the ASCEND_PROFILER_OUTPUT
// directory; the file lies next to it (in the *_ascend_pt directory) or inside it.
RankIdentity torch_npu_identity(const std::filesystem::path& output_dir);

struct RankedInput {
  std::string file;
  RankIdentity id;
};

// Why the inputs are not ranks of one job (one line), or "" when they are: every input names its
// rank, no rank appears twice, and the world sizes and job names that are recorded agree.
std::string why_not_one_job(const std::vector<RankedInput>& inputs);

}  // namespace banjia::trace
