// Which distributed job and rank a trace belongs to, as the profilers record it (read by
// readers/profiler_identity.h). The cluster view is made only of traces that are distinct ranks of
// one job.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace banjia::trace {

struct RankIdentity {
  std::optional<int64_t> rank, world_size;
  std::string job;  // what names the job where the profiler records it (torch_npu output directory), or ""
};

struct RankedInput {
  std::string file;
  RankIdentity id;
};

// Why the inputs are not ranks of one job (one line), or "" when they are: every input names its
// rank, no rank appears twice, and the world sizes and job names that are recorded agree.
std::string why_not_one_job(const std::vector<RankedInput>& inputs);

}  // namespace banjia::trace
