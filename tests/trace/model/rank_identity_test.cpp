// Which inputs make one job's cluster: the rank fields the profilers record, and the reasons given
// when inputs are not ranks of one job.
#include "trace/model/rank_identity.h"
#include "trace/readers/profiler_identity.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace banjia::trace;

namespace {

RankedInput input(std::string file, std::optional<int64_t> rank, std::optional<int64_t> world = std::nullopt,
                  std::string job = "") {
  return RankedInput{std::move(file), RankIdentity{rank, world, std::move(job)}};
}

}  // namespace

TEST(RankIdentity, ReadsKinetoDistributedInfo) {
  RankIdentity id = parse_distributed_info(R"({"backend": "nccl", "rank": 3, "world_size": 8, "pg_count": 1})");
  EXPECT_EQ(id.rank, 3);
  EXPECT_EQ(id.world_size, 8);
  RankIdentity only_rank = parse_distributed_info(R"({"rank": 0})");
  EXPECT_EQ(only_rank.rank, 0);
  EXPECT_FALSE(only_rank.world_size.has_value());
  EXPECT_FALSE(parse_distributed_info(R"({"rank": "zero"})").rank.has_value());
  EXPECT_FALSE(parse_distributed_info("not json").rank.has_value());
}

TEST(RankIdentity, ReadsTorchNpuProfilerInfo) {
  auto dir = std::filesystem::temp_directory_path() / "banjia_rank_identity_test" / "rank5_ascend_pt";
  std::filesystem::create_directories(dir / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir / "profiler_info_5.json")
      << R"({"config": {"common_config": {"on_trace_ready": {"_dir_name": "/out/job"}}}, "rank_id": 5})";
  RankIdentity id = torch_npu_identity(dir / "ASCEND_PROFILER_OUTPUT");
  EXPECT_EQ(id.rank, 5);
  EXPECT_EQ(id.job, "/out/job");
  std::filesystem::remove_all(dir.parent_path());
}

TEST(RankIdentity, OneJobNeedsDistinctRanksAndAgreeingMetadata) {
  EXPECT_EQ(why_not_one_job({input("a", 0, 2), input("b", 1, 2)}), "");
  EXPECT_EQ(why_not_one_job({input("a", 0), input("b", 1)}), "");  // nothing recorded that could disagree
  EXPECT_EQ(why_not_one_job({input("a", 0), input("b", std::nullopt)}),
            "b records no rank (Kineto distributedInfo.rank, torch_npu profiler_info rank_id)");
  EXPECT_EQ(why_not_one_job({input("a", 1, 2), input("b", 1, 2)}), "a and b are both rank 1");
  EXPECT_EQ(why_not_one_job({input("a", 0, 1), input("b", 34, 300)}), "world sizes differ: 1 in a, 300 in b");
  EXPECT_EQ(why_not_one_job({input("a", 0, 2), input("b", 2, 2)}), "b: rank 2 is outside its world size 2");
  EXPECT_EQ(why_not_one_job({input("a", 0, std::nullopt, "/x"), input("b", 1, std::nullopt, "/y")}),
            "a and b were written to different output directories (/x, /y)");
}
