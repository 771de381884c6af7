// Found by the malformed-input corpus (tests/malformed/bench/huge_times.json): a time that is finite in
// its own unit but overflows (or underflows to zero) in milliseconds used to be kept as inf (or 0),
// which turned the run's median and max into null in the report.
#include <gtest/gtest.h>

#include "bench/run.h"

namespace banjia::bench {
namespace {

TEST(BenchRunRange, JsonTimesOutOfRangeInMillisecondsAreSkipped) {
  bench::Run r = parse_json_run(R"({"format":"banjia.bench","version":1,"timing":{"unit":"s","times":[1e308,2,3]}})",
                         "r.json");
  EXPECT_EQ(r.times_ms, (std::vector<double>{2000, 3000}));  // 1e308 s = 1e311 ms overflows a double
  EXPECT_EQ(r.skipped, 1u);
  EXPECT_NE(r.first_skip.find("timing.times[0]"), std::string::npos) << r.first_skip;
  EXPECT_NE(r.first_skip.find("out of range"), std::string::npos) << r.first_skip;

  bench::Run u = parse_json_run(R"({"format":"banjia.bench","version":1,"timing":{"unit":"us","times":[5e-324,3]}})",
                         "u.json");
  EXPECT_EQ(u.times_ms, std::vector<double>{0.003});  // 5e-324 us is 0 ms in a double
  EXPECT_EQ(u.skipped, 1u);
}

TEST(BenchRunRange, CsvTimesOutOfRangeInMillisecondsAreSkipped) {
  bench::Run r = parse_csv_run("iteration,s\n0,1e308\n1,0.5\n", "r.csv");
  EXPECT_EQ(r.times_ms, std::vector<double>{500});
  EXPECT_EQ(r.skipped, 1u);
  EXPECT_EQ(r.first_skip, "data row 1: time 1e308 out of range");
  bench::Run u = parse_csv_run("iteration,us\n0,4.9e-324\n1,2\n", "u.csv");
  EXPECT_EQ(u.times_ms, std::vector<double>{0.002});
  EXPECT_EQ(u.skipped, 1u);
}

}  // namespace
}  // namespace banjia::bench
