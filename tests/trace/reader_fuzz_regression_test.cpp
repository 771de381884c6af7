// Regressions for what fuzz_trace_json / fuzz_ascend_csv found (inputs: fuzz/corpus/*/regression-*).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/errors.h"
#include "trace/ascend_csv.h"
#include "trace/decimal_time.h"
#include "trace/json_trace_reader.h"

using namespace banjia::trace;
namespace fs = std::filesystem;

namespace {
const fs::path kCorpus = fs::path(BANJIA_SOURCE_DIR) / "fuzz" / "corpus";

class ProfilerDir : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("banjia_ascend_regr_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  void write(const char* name, const std::string& text) { std::ofstream(dir / name) << text; }
};
}  // namespace

// 3e15 us is the largest magnitude read, so that ts + dur and differences of ends fit in int64.
TEST(DecimalTimeRange, RejectsTimesWhoseSumsCouldOverflow) {
  EXPECT_EQ(parse_us_to_ns("3000000000000000"), kMaxTimeNs);
  EXPECT_EQ(parse_us_to_ns("-3000000000000000"), -kMaxTimeNs);
  EXPECT_FALSE(parse_us_to_ns("3000000000000000.001"));
  EXPECT_FALSE(parse_us_to_ns("\"-9000000000000000\""));
  EXPECT_EQ(parse_us_to_ns("1736408883704643.212"), 1736408883704643212);  // real epoch times unaffected
}

TEST(JsonTraceRegression, EventsBeyondTheTimeRangeAreMissingFields) {
  TraceData t = read_json_trace(kCorpus / "trace_json" / "regression-time-beyond-int64-sums.json");
  ASSERT_EQ(t.size(), 1u);  // the 9e15 us event is dropped, the 2999999999999999.999 us one kept
  EXPECT_EQ(t.missing_fields, 1u);
  EXPECT_EQ(t.ts[0], 2999999999999999999);
  EXPECT_EQ(t.dur[0], 2999999999999999999);
}

// A gzip trailer claiming ~4 GB for a 2 KB file: an error about the data, not a 4 GB allocation.
TEST(JsonTraceRegression, GzipTrailerSizeIsNotTrusted) {
  try {
    read_json_trace(kCorpus / "trace_json" / "regression-gzip-trailer-size");
    FAIL() << "expected InputError";
  } catch (const banjia::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
  }
}

TEST_F(ProfilerDir, KernelRowsBeyondTheTimeRangeAreSkipped) {
  write("kernel_details.csv",
        "Name,Start Time(us),Duration(us),Step Id\n"
        "k,9000000000000000,9000000000000000,1\n"
        "j,-2999999999999999.999,2999999999999999.999,1\n"
        "m,2999999999999999.999,2999999999999999.999,1\n");
  TraceData t = trace_from_kernel_details(dir);
  EXPECT_EQ(t.missing_fields, 1u);
  ASSERT_EQ(t.size(), 3u);  // j, m and the ProfilerStep#1 marker spanning both
  EXPECT_EQ(t.name_of(2), "ProfilerStep#1");
  EXPECT_EQ(t.ts[2], -2999999999999999999);
  EXPECT_EQ(t.ts[2] + t.dur[2], 2 * 2999999999999999999);
}

TEST_F(ProfilerDir, NonFiniteAndOutOfRangeCellsCountAsZero) {
  write("op_statistic.csv", "OP Type,Count,Total Time(us)\nAdd,1e30,1\nMul,-5,nan\nCast,3,inf\n");
  write("step_trace_time.csv", "Step,Computing,Communication(Not Overlapped),Free,Preparing\n1,inf,1,2,nan\n");
  NpuExtras x = read_npu_extras(dir, TraceData{});
  ASSERT_EQ(x.op_statistic.size(), 3u);
  EXPECT_EQ(x.op_statistic[0].count, 0u);  // 1e30 is no count (was an undefined conversion)
  EXPECT_EQ(x.op_statistic[0].total_us, 1);
  EXPECT_EQ(x.op_statistic[1].count, 0u);
  EXPECT_EQ(x.op_statistic[1].total_us, 0);
  EXPECT_EQ(x.op_statistic[2].count, 3u);
  EXPECT_EQ(x.op_statistic[2].total_us, 0);
  ASSERT_EQ(x.step_trace.size(), 1u);
  EXPECT_EQ(x.step_trace[0].computing, 0);
  EXPECT_EQ(x.step_trace[0].free, 2);
  EXPECT_FALSE(x.step_trace[0].preparing.has_value());
}
