// Regressions for what fuzz_trace_json / fuzz_ascend_csv found (inputs: fuzz/corpus/*/regression-*).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/errors.h"
#include "trace/readers/ascend_csv.h"
#include "trace/readers/decimal_time.h"
#include "trace/readers/json_trace_reader.h"

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

// A step whose only kernel has a negative duration made a ProfilerStep marker of negative length.
TEST_F(ProfilerDir, NegativeDurationMakesNoNegativeStep) {
  write("kernel_details.csv", "Name,Start Time(us),Duration(us),Step Id\nk,100,-50,7\nj,200,10,8\n");
  TraceData t = trace_from_kernel_details(dir);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.name_of(2), "ProfilerStep#7");
  EXPECT_EQ(t.ts[2], 100000);
  EXPECT_EQ(t.dur[2], 0);
  EXPECT_EQ(t.name_of(3), "ProfilerStep#8");
  EXPECT_EQ(t.dur[3], 10000);
}

namespace {
std::string write_trace(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("banjia_trace_regr_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

size_t events_or_error(const std::string& path, size_t part_bytes, std::string& error) {
  try {
    return read_json_trace(path, part_bytes).size();
  } catch (const banjia::InputError& e) {
    error = e.what();
    return 0;
  }
}
}  // namespace

// Found by fuzz_trace_json (whole-document and parted reads disagreed: 4, 12 and 11 events): a second
// "traceEvents" member was ignored by the splitter, read by the whole-document parser, and a part
// crossing the end of the first array was read on into the second.
TEST(JsonTraceRegression, DuplicateTraceEventsIsAnErrorInEveryReadMode) {
  std::string p = write_trace("dup.json",
                              "{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n"
                              "  {\"ph\": \"X\", \"name\": \"b\", \"ts\": 2, \"dur\": 1}\n],\n"
                              "\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"c\", \"ts\": 3, \"dur\": 1}\n]}\n");
  for (size_t part : {size_t{16} << 20, size_t{0}}) {
    std::string error;
    EXPECT_EQ(events_or_error(p, part, error), 0u);
    EXPECT_NE(error.find("more than one \"traceEvents\" array"), std::string::npos) << error;
  }
  fs::remove(p);
}

// A later top-level array laid out like the events: a split must not carry on into it.
TEST(JsonTraceRegression, SplitNeverReadsPastTheEventArray) {
  std::string p = write_trace("trailing.json",
                              "{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n"
                              "  {\"ph\": \"X\", \"name\": \"b\", \"ts\": 2, \"dur\": 1}\n],\n"
                              "\"other\": [\n  {\"ph\": \"X\", \"name\": \"c\", \"ts\": 3, \"dur\": 1},\n"
                              "  {\"ph\": \"X\", \"name\": \"d\", \"ts\": 4, \"dur\": 1}\n]}\n");
  std::string error;
  EXPECT_EQ(events_or_error(p, 0, error), 2u) << error;
  EXPECT_EQ(events_or_error(p, size_t{16} << 20, error), 2u) << error;
  size_t tiny = events_or_error(p, 8, error);  // parts of 8 bytes: a split lands in "other"
  EXPECT_TRUE(tiny == 2u || (tiny == 0u && error.find("trailing content") != std::string::npos)) << tiny << " " << error;
  fs::remove(p);
}

// Found by fuzz_trace_json ("flow string ids inside the pool"): a flow event with "id" twice, a string
// and then a number. The number replaced the value but left the event marked as a string id, so
// joining parted reads looked the number up as a string-pool index (out of bounds). JSON's last key
// wins (Python: json.loads('{"id": "a", "id": 5}') == {'id': 5}), so the flow's id is the number.
TEST(JsonTraceRegression, RepeatedFlowIdKeepsOnlyTheLastOne) {
  const uint64_t big = 1736408883700059821;  // the fuzzer's number: far past any string-pool index
  std::string p = write_trace("flow_ids.json",
                              "{\"traceEvents\": [\n"
                              "  {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n"
                              "  {\"ph\": \"s\", \"cat\": \"ac2g\", \"id\": \"h2d\", \"id\": 1736408883700059821, \"ts\": 1},\n"
                              "  {\"ph\": \"f\", \"cat\": \"ac2g\", \"id\": 7, \"id\": \"h2d\", \"ts\": 2, \"bp\": \"e\"},\n"
                              "  {\"ph\": \"X\", \"name\": \"b\", \"ts\": 2, \"dur\": 1}\n]}\n");
  for (size_t part : {size_t{0}, size_t{16} << 20, size_t{8}}) {  // whole, default parts, tiny parts
    TraceData t = read_json_trace(p, part);
    ASSERT_EQ(t.flows.size(), 2u) << part;
    EXPECT_FALSE(t.flows[0].string_id) << part;
    EXPECT_EQ(t.flows[0].id, big) << part;
    ASSERT_TRUE(t.flows[1].string_id) << part;
    ASSERT_LT(t.flows[1].id, t.strings.size()) << part;
    EXPECT_EQ(t.strings.view(static_cast<uint32_t>(t.flows[1].id)), "h2d") << part;
  }
  fs::remove(p);
}
