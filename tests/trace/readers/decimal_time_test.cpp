#include "trace/readers/decimal_time.h"

#include <gtest/gtest.h>

using banjia::trace::parse_u64;
using banjia::trace::parse_us_to_ns;

TEST(DecimalTime, ParsesMicrosecondsExactlyIntoNanoseconds) {
  EXPECT_EQ(parse_us_to_ns("5179766322451.942"), 5179766322451942);
  EXPECT_EQ(parse_us_to_ns("12"), 12000);
  EXPECT_EQ(parse_us_to_ns("0.5"), 500);
  EXPECT_EQ(parse_us_to_ns("-3.25"), -3250);
  // Absolute epoch µs: a double cannot hold this value in ns exactly.
  EXPECT_EQ(parse_us_to_ns("\"1736408883704643.212\""), 1736408883704643212);
}

TEST(DecimalTime, AcceptsCsvQuirks) {
  EXPECT_EQ(parse_us_to_ns("1736413971558972.912\t"), 1736413971558972912);  // kernel_details.csv trailing tab
  EXPECT_EQ(parse_us_to_ns("  7.1 "), 7100);
}

TEST(DecimalTime, RoundsBeyondNanoseconds) {
  EXPECT_EQ(parse_us_to_ns("840.07675"), 840077);
  EXPECT_EQ(parse_us_to_ns("840.0764"), 840076);
  EXPECT_EQ(parse_us_to_ns("1e3"), 1000000);
}

TEST(DecimalTime, RejectsNonNumbers) {
  EXPECT_FALSE(parse_us_to_ns("N/A"));
  EXPECT_FALSE(parse_us_to_ns(""));
  EXPECT_FALSE(parse_us_to_ns("12abc"));
  EXPECT_FALSE(parse_us_to_ns("."));
  EXPECT_FALSE(parse_us_to_ns("99999999999999999999999"));
}

TEST(DecimalTime, SixtyFourBitIds) {
  EXPECT_EQ(parse_u64("1704161511422904204"), 1704161511422904204ull);
  EXPECT_EQ(parse_u64("\"18446744073709551615\""), 18446744073709551615ull);
  EXPECT_FALSE(parse_u64("-1"));
  EXPECT_FALSE(parse_u64("1.5"));
}
