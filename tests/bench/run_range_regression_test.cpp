// Found by the malformed-input corpus (tests/malformed/bench/huge_times.json): a time that is finite in
// its own unit but overflows (or underflows to zero) in milliseconds is skipped as out of range; kept
// as inf (or 0) it would turn the run's median and max into null in the report.
#include <gtest/gtest.h>

#include <functional>

#include "bench/run.h"
#include "common/errors.h"

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

// A number beyond a double (1e400) is out of range, not "non-numeric" text.
TEST(BenchRunRange, CsvNumberBeyondDoubleIsOutOfRange) {
  bench::Run r = parse_csv_run("iteration,ms\n0,1e400\n1,2\n", "r.csv");
  EXPECT_EQ(r.times_ms, std::vector<double>{2});
  EXPECT_EQ(r.first_skip, "data row 1: time 1e400 out of range (beyond a double)");
}

std::string problem_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.problem();
  }
  return "no error";
}

// A finite time whose sums, squares or ratios would leave the double range (1e308 ms) is refused with
// its place, not carried into statistics that print nan.
TEST(BenchRunRange, TimesTheStatisticsCannotHoldAreRefused) {
  EXPECT_EQ(problem_of([] { parse_csv_run("iteration,ms\n0,5\n1,1e308\n", "r.csv"); }),
            "time 1e308 ms at data row 2 overflows the statistics (accepted: 1e-40 to 1e+40 ms)");
  EXPECT_EQ(problem_of([] { parse_csv_run("iteration,s\n0,1e-44\n", "r.csv"); }),
            "time 1e-44 s at data row 1 underflows the statistics (accepted: 1e-40 to 1e+40 ms)");
  EXPECT_EQ(problem_of([] {
              parse_json_run(R"({"format":"banjia.bench","version":1,"timing":{"unit":"s","times":[2, 1e300]}})", "r.json");
            }),
            "time 1e+300 s at timing.times[1] overflows the statistics (accepted: 1e-40 to 1e+40 ms)");
  EXPECT_EQ(problem_of([] {
              parse_json_run(R"({"format":"banjia.bench","version":1,"timing":{"unit":"ms","times":[2]},)"
                             R"("power":{"samples_w":[100, 1e308]}})",
                             "r.json");
            }),
            "power 1e+308 W at power.samples_w[1] overflows the statistics (accepted: 1e-40 to 1e+40 W)");
  EXPECT_EQ(problem_of([] {
              parse_json_run(R"({"format":"banjia.bench","version":1,"timing":{"unit":"ms","times":[2]},"batch_size":1e300})",
                             "r.json");
            }),
            "batch size 1e+300 at \"batch_size\" overflows the statistics (accepted: 1e-40 to 1e+40 samples)");
}

}  // namespace
}  // namespace banjia::bench
