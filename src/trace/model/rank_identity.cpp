#include "trace/model/rank_identity.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace banjia::trace {

std::string why_not_one_job(const std::vector<RankedInput>& in) {
  for (const auto& r : in)
    if (!r.id.rank)
      return fmt::format("{} records no rank (Kineto distributedInfo.rank, torch_npu profiler_info rank_id)", r.file);
  std::map<int64_t, const RankedInput*> by_rank;
  for (const auto& r : in) {
    auto [it, fresh] = by_rank.try_emplace(*r.id.rank, &r);
    if (!fresh) return fmt::format("{} and {} are both rank {}", it->second->file, r.file, *r.id.rank);
  }
  const RankedInput* sized = nullptr;
  const RankedInput* named = nullptr;
  for (const auto& r : in) {
    if (r.id.world_size) {
      if (*r.id.rank < 0 || *r.id.rank >= *r.id.world_size)
        return fmt::format("{}: rank {} is outside its world size {}", r.file, *r.id.rank, *r.id.world_size);
      if (sized && *sized->id.world_size != *r.id.world_size)
        return fmt::format("world sizes differ: {} in {}, {} in {}", *sized->id.world_size, sized->file,
                           *r.id.world_size, r.file);
      sized = &r;
    }
    if (!r.id.job.empty()) {
      if (named && named->id.job != r.id.job)
        return fmt::format("{} and {} were written to different output directories ({}, {})", named->file, r.file,
                           named->id.job, r.id.job);
      named = &r;
    }
  }
  return "";
}

}  // namespace banjia::trace
