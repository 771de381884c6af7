// Reading runs: CSV (`iteration,ms`) and recorder JSON, with every kind of bad input.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/run.h"
#include "common/errors.h"
#include "fixture_path.h"

namespace banjia::bench {
namespace {

TEST(BenchRun, CsvMillisecondsInFileOrder) {
  bench::Run r = parse_csv_run("iteration,ms\n0,32.5\n1,33.25\r\n2,31\n", "a.csv");
  EXPECT_EQ(r.times_ms, (std::vector<double>{32.5, 33.25, 31}));
  EXPECT_EQ(r.skipped, 0u);
}

TEST(BenchRun, CsvOtherUnitsAreConvertedToMilliseconds) {
  EXPECT_EQ(parse_csv_run("iteration,us\n0,1500\n", "a.csv").times_ms, std::vector<double>{1.5});
  EXPECT_EQ(parse_csv_run("iteration,time_s\n0,0.25\n", "a.csv").times_ms, std::vector<double>{250});
}

TEST(BenchRun, CsvInvalidCellsAreSkippedAndCounted) {
  bench::Run r = parse_csv_run("iteration,ms\n0,abc\n1,-3\n2,0\n3,5\n4,\n5,nan\n6,7\n", "a.csv");
  EXPECT_EQ(r.times_ms, (std::vector<double>{5, 7}));
  EXPECT_EQ(r.skipped, 5u);
  EXPECT_NE(r.first_skip.find("non-numeric time 'abc'"), std::string::npos) << r.first_skip;
}

TEST(BenchRun, CsvErrorsNameTheFileAndTheProblem) {
  auto message = [](std::string_view text) {
    try {
      parse_csv_run(text, "bad.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("iteration,furlongs\n0,1\n").find("bad.csv: no time column"), std::string::npos);
  EXPECT_NE(message("iteration,ms\n").find("bad.csv: no data rows"), std::string::npos);
  EXPECT_NE(message("iteration,ms\n0,x\n1,-1\n").find("no valid times (2 rows skipped"), std::string::npos);
}

constexpr const char* kRecording = R"({"format": "banjia.bench", "version": 1, "label": "npu-tuned",
  "device": {"type": "npu", "index": 0, "name": "Ascend910B3"},
  "timing": {"method": "npu-event", "unit": "ms", "warmup": 5, "times": [39.5, 40.0, -1, "x", 38.5]},
  "batch_size": 64, "sample_unit": "images",
  "memory": {"peak_allocated_bytes": 4831838208, "peak_reserved_bytes": 5000000000, "peak_rss_bytes": null},
  "power": {"tool": "npu-smi", "samples_w": [160.5, 161.0, 159.5], "median_w": 160.5}})";

TEST(BenchRun, RecorderJson) {
  bench::Run r = parse_json_run(kRecording, "npu.json");
  EXPECT_EQ(r.label, "npu-tuned");
  EXPECT_EQ(r.device, "npu");
  EXPECT_EQ(r.device_name, "Ascend910B3");
  EXPECT_EQ(r.timing_method, "npu-event");
  EXPECT_EQ(r.times_ms, (std::vector<double>{39.5, 40.0, 38.5}));
  EXPECT_EQ(r.skipped, 2u);
  EXPECT_EQ(r.batch_size, 64.0);
  EXPECT_EQ(r.sample_unit, "images");
  EXPECT_EQ(r.peak_memory_bytes, 4831838208.0);
  EXPECT_EQ(r.memory_kind, "allocated");
  EXPECT_EQ(r.power_w, (std::vector<double>{160.5, 161.0, 159.5}));
}

TEST(BenchRun, RecorderJsonMicrosecondsAndRssFallback) {
  bench::Run r = parse_json_run(R"({"format":"banjia.bench","version":1,"timing":{"unit":"us","times":[2000,3000]},
    "memory":{"peak_allocated_bytes":null,"peak_rss_bytes":1024},"power":null})", "cpu.json");
  EXPECT_EQ(r.times_ms, (std::vector<double>{2, 3}));
  EXPECT_EQ(r.memory_kind, "rss");
  EXPECT_TRUE(r.power_w.empty());
}

TEST(BenchRun, RecorderJsonErrors) {
  auto message = [](std::string_view text) {
    try {
      parse_json_run(text, "r.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{").find("r.json: invalid JSON"), std::string::npos);
  EXPECT_NE(message(R"({"a":1})").find("not a banjia bench recording"), std::string::npos);
  EXPECT_NE(message(R"({"format":"banjia.bench","version":2,"timing":{}})").find("version 2 is not supported"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"banjia.bench","version":1,"timing":{"unit":"min","times":[1]}})")
                .find("unknown time unit 'min'"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"banjia.bench","version":1,"timing":{"unit":"ms","times":[]}})").find("is empty"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"banjia.bench","version":1,"timing":{"unit":"ms","times":[1]},"batch_size":-4})")
                .find("batch_size"),
            std::string::npos);
}

TEST(BenchRun, LoadRunPicksTheReaderAndLabelsByFileName) {
  const std::filesystem::path dir = banjia::test::fixture("gpu-h200/bench");
  bench::Run r = load_run((dir / "resnet50_fp32.csv").string());
  EXPECT_EQ(r.label, "resnet50_fp32");
  EXPECT_EQ(r.times_ms.size(), 30u);
  ASSERT_TRUE(std::filesystem::is_directory(dir));  // so that the throw below is about a directory
  EXPECT_THROW(load_run(dir.string()), InputError);
  EXPECT_THROW(load_run("no/such/file.csv"), InputError);
}

}  // namespace
}  // namespace banjia::bench
