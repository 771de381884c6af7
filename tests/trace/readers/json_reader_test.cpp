// The streaming reader on small hand-written traces (the real fixtures are covered end to end in
// tests/e2e/test_trace_*.py).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/errors.h"
#include "fixture_path.h"
#include "trace/readers/json_trace_reader.h"
#include "trace/analysis/summarize.h"
#include "trace/analysis/summary.h"

using namespace banjia::trace;
namespace fs = std::filesystem;

namespace {
fs::path write_temp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("banjia_trace_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p;
}
}  // namespace

TEST(JsonTraceReader, ReadsKinetoEventsFlowsAndMetadata) {
  auto p = write_temp("k.json", R"({"baseTimeNanoseconds": 1790857026000000000, "traceEvents": [
    {"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":5179766322451.942,"dur":1.5,
     "args":{"correlation":9223372036854775807,"External id":3,"bytes":12}},
    {"ph":"s","cat":"ac2g","id":18446744073709551615,"pid":1,"tid":1,"ts":1},
    {"ph":"X","cat":"Trace","name":"span","pid":"Spans","tid":"PyTorch Profiler","ts":1,"dur":2}
  ]})");
  TraceData t = read_json_trace(p);
  fs::remove(p);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.format, TraceFormat::kineto);
  EXPECT_EQ(t.base_time_ns, 1790857026000000000);
  EXPECT_EQ(t.ts[0], 5179766322451942);
  EXPECT_EQ(t.dur[0], 1500);
  EXPECT_EQ(t.corr[0], INT64_MAX);
  EXPECT_EQ(t.ext_id[0], 3);
  EXPECT_EQ(t.bytes[0], 12);
  EXPECT_EQ(t.kind[0], Kind::kernel);
  EXPECT_EQ(t.kind[1], Kind::other);
  EXPECT_LT(t.pid[1], 0);  // string pid interned
  ASSERT_EQ(t.flows.size(), 1u);
  EXPECT_EQ(t.flows[0].id, 18446744073709551615ull);
  EXPECT_EQ(t.process_labels.at(0), "GPU 0");
}

TEST(JsonTraceReader, CorruptInputNamesTheFile) {
  auto p = write_temp("bad.json", R"({"traceEvents": [{"ph":"X","name":"a","ts":1,"dur":)");
  try {
    read_json_trace(p);
    FAIL() << "expected InputError";
  } catch (const banjia::InputError& e) {
    EXPECT_EQ(e.file(), p.string());
  }
  fs::remove(p);
}

TEST(JsonTraceReader, SummaryOfTinyTrace) {
  auto p = write_temp("s.json", R"({"traceEvents": [
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":30,"dur":40,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"gemm_b","pid":0,"tid":8,"ts":50,"dur":60,"args":{"correlation":2}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH","pid":0,"tid":7,"ts":100,"dur":20,"args":{"bytes":4}}
  ]})");
  Summary s = summarize(ProfilerRun{read_json_trace(p)});
  fs::remove(p);
  ASSERT_EQ(s.steps.size(), 1u);
  const Breakdown& b = s.steps[0].breakdown;
  EXPECT_DOUBLE_EQ(b.compute_us, 80);  // [30,110) union of two streams
  EXPECT_DOUBLE_EQ(b.memory_us, 10);   // [110,120) not hidden by compute
  EXPECT_DOUBLE_EQ(b.wall_us, 120);    // step end extended to the last device work it launched
  EXPECT_DOUBLE_EQ(b.idle_us, 30);
  EXPECT_EQ(s.steps[0].d2h_count, 1u);
  EXPECT_EQ(s.launch_delay.count, 2u);
  EXPECT_DOUBLE_EQ(s.launch_delay.median_us, 25);
}

// Parsing in parts (parallel, split at top-level separators) gives exactly the whole-document result.
TEST(JsonTraceReader, PartsEqualWholeDocument) {
  fs::path p = banjia::test::fixture("gpu-h200/traces/resnet50_fp32.json.gz");
  TraceData whole = read_json_trace(p, 0), parts = read_json_trace(p, 64 * 1024);
  ASSERT_EQ(whole.size(), parts.size());
  ASSERT_GT(whole.size(), 10000u);
  EXPECT_EQ(whole.ts, parts.ts);
  EXPECT_EQ(whole.dur, parts.dur);
  EXPECT_EQ(whole.corr, parts.corr);
  EXPECT_EQ(whole.flows.size(), parts.flows.size());
  EXPECT_EQ(whole.process_labels, parts.process_labels);
  for (size_t i = 0; i < whole.size(); i += 97) {
    EXPECT_EQ(whole.name_of(i), parts.name_of(i));
    EXPECT_EQ(whole.strings.view(whole.shape[i]), parts.strings.view(parts.shape[i]));
    EXPECT_EQ(whole.kind[i], parts.kind[i]);
    EXPECT_EQ(whole.pid[i] < 0, parts.pid[i] < 0);
  }
  Summary a = summarize(ProfilerRun{std::move(whole)}), b = summarize(ProfilerRun{std::move(parts)});
  EXPECT_EQ(a.kernel_count, b.kernel_count);
  EXPECT_DOUBLE_EQ(a.overall.breakdown.compute_us, b.overall.breakdown.compute_us);
}

// The analysis runs in blocks on worker threads and the reader parses parts side by side: the
// result must not depend on the number of threads. A real trace of more than one block of events
// (kEventBlock), parsed in many small parts.
TEST(JsonTraceReader, SummaryIndependentOfThreadCount) {
  fs::path p = banjia::test::fixture("kineto/hta/trace_diff/control/control.json.gz");
  TraceData one = read_json_trace(p, 256 * 1024, 1), four = read_json_trace(p, 256 * 1024, 4);
  ASSERT_GT(one.size(), 65536u);
  EXPECT_EQ(one.ts, four.ts);
  EXPECT_EQ(one.name, four.name);
  EXPECT_EQ(one.kind, four.kind);
  EXPECT_EQ(one.pid, four.pid);
  SummaryOptions o1, o4;
  o1.threads = 1;
  o4.threads = 4;
  Summary a = summarize(ProfilerRun{std::move(one)}, o1), b = summarize(ProfilerRun{std::move(four)}, o4);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t k = 0; k < a.steps.size(); ++k) {
    EXPECT_EQ(a.steps[k].breakdown.compute_us, b.steps[k].breakdown.compute_us);
    EXPECT_EQ(a.steps[k].kernels, b.steps[k].kernels);
    EXPECT_EQ(a.steps[k].kernel_median_us, b.steps[k].kernel_median_us);
    EXPECT_EQ(a.steps[k].sync_points, b.steps[k].sync_points);
  }
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t k = 0; k < a.ops.size(); ++k) {
    EXPECT_EQ(a.ops[k].name, b.ops[k].name);
    EXPECT_EQ(a.ops[k].self_us, b.ops[k].self_us);
    EXPECT_EQ(a.ops[k].total_us, b.ops[k].total_us);
  }
  EXPECT_EQ(a.launch_delay.mean_us, b.launch_delay.mean_us);
  EXPECT_EQ(a.launch_delay.p95_us, b.launch_delay.p95_us);
  EXPECT_EQ(a.findings.size(), b.findings.size());
}

TEST(JsonTraceReader, DistStatsNsMatchesSortedDefinition) {
  std::vector<int64_t> v = {5000, 1000, 9000, 3000, 7000, 2000};  // sorted: 1 2 3 5 7 9 (µs)
  DistStats d = dist_stats_ns(v);
  EXPECT_EQ(d.count, 6u);
  EXPECT_DOUBLE_EQ(d.median_us, 4.0);      // (3 + 5) / 2
  EXPECT_DOUBLE_EQ(d.p95_us, 9.0);         // element ceil(0.95 * 6) = 6th
  EXPECT_DOUBLE_EQ(d.max_us, 9.0);
  EXPECT_DOUBLE_EQ(d.mean_us, 27.0 / 6);
  EXPECT_DOUBLE_EQ(dist_stats_ns({4000}).median_us, 4.0);
  EXPECT_EQ(dist_stats_ns({}).count, 0u);
}
