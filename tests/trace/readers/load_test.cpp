// load() reads every file of an input; summarize() works from the ProfilerRun in memory alone.
#include "trace/readers/load.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "fixture_path.h"
#include "trace/analysis/summarize.h"
#include "trace/analysis/summary.h"

using namespace banjia::trace;
namespace fs = std::filesystem;

namespace {

// A torch_npu output (trace_view.json, the CSV/JSON side files, profiler_info_1.json) copied to a
// directory of the test's own, so the test can delete it.
fs::path copy_of_torch_npu_output() {
  fs::path dir = fs::temp_directory_path() / ("banjia_load_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(banjia::test::fixture("ascend/msinsight/text/level1/rank1_ascend_pt"), dir, fs::copy_options::recursive);
  return dir;
}

}  // namespace

TEST(Load, TorchNpuDirectoryBringsSideFilesAndRank) {
  fs::path dir = copy_of_torch_npu_output();
  ProfilerRun run = load(dir, 2);
  fs::remove_all(dir);
  EXPECT_EQ(run.format(), TraceFormat::torch_npu);
  EXPECT_EQ(run.trace.file, dir.string());
  ASSERT_TRUE(run.npu.has_value());
  fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
  EXPECT_EQ(run.npu->sources,
            (std::vector<std::string>{(out / "kernel_details.csv").string(), (out / "step_trace_time.csv").string(),
                                      (out / "op_statistic.csv").string(), (out / "operator_details.csv").string(),
                                      (out / "communication.json").string(), (out / "communication_matrix.json").string()}));
  EXPECT_FALSE(run.npu->step_trace.empty());
  EXPECT_EQ(run.rank.rank, 1);
}

// The input is gone before the analysis starts: what the summary reports of the side files and the
// rank can only have come from the ProfilerRun.
TEST(Load, SummaryNeedsNoFileOfTheInput) {
  fs::path dir = copy_of_torch_npu_output();
  ProfilerRun run = load(dir, 2);
  fs::remove_all(dir);
  ASSERT_FALSE(fs::exists(dir));
  Summary s = summarize(run);
  EXPECT_EQ(s.format, TraceFormat::torch_npu);
  ASSERT_TRUE(s.npu.has_value());
  EXPECT_EQ(s.npu->sources, run.npu->sources);
  EXPECT_EQ(s.npu->step_trace.size(), run.npu->step_trace.size());
  EXPECT_EQ(s.rank.rank, 1);
  EXPECT_FALSE(s.steps.empty());
}

TEST(Load, KinetoFileHasNoNpuExtras) {
  ProfilerRun run = load(banjia::test::fixture("gpu-h200/traces/resnet50_fp32.json.gz"), 2);
  EXPECT_EQ(run.format(), TraceFormat::kineto);
  EXPECT_FALSE(run.npu.has_value());
  EXPECT_EQ(format_name(run.format()), "kineto");
}
