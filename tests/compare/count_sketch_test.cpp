// Count sketches (compare/model/count_sketch.h): the scheme a capture names, the buckets and signs of the
// hash (expected values computed with Python's integers from the formula in python/banjia/_sketch.py),
// and the distance of two sketches.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "compare/model/count_sketch.h"

namespace banjia::compare {
namespace {

const char* kScheme =
    R"({"kind":"count-sketch","buckets":64,"prime":2147483647,"a":1103515245,"b":40503,"c":506952114,"order":"row-major"})";

std::optional<SketchScheme> scheme_of(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) return std::nullopt;
  return parse_sketch_scheme(root);
}

NpyView view_of(const std::vector<float>& values, bool fortran = false) {
  NpyView v;
  v.dtype = DType::kF32;
  v.data = reinterpret_cast<const std::byte*>(values.data());
  v.count = values.size();
  v.shape = fortran ? std::vector<int64_t>{1, static_cast<int64_t>(values.size())} : std::vector<int64_t>{static_cast<int64_t>(values.size())};
  v.fortran_order = fortran;
  return v;
}

TEST(CountSketch, ElementsGoToTheBucketsAndSignsOfTheHash) {
  auto scheme = scheme_of(kScheme);
  ASSERT_TRUE(scheme);
  // h(0..4) mod 64 = 50, 22, 22, 48, 38 with signs +, -, -, +, -
  const std::vector<float> x{1, 2, 3, 4, 5};
  const std::vector<double> s = sketch_of(view_of(x), *scheme);
  ASSERT_EQ(s.size(), 64u);
  std::vector<double> expected(64, 0.0);
  expected[50] = 1;
  expected[22] = -2 - 3;
  expected[48] = 4;
  expected[38] = -5;
  EXPECT_EQ(s, expected);
}

TEST(CountSketch, DistanceIsTheNormOfTheDifference) {
  EXPECT_DOUBLE_EQ(*sketch_distance({3, 0, 1}, {0, 4, 1}), 5.0);
  EXPECT_FALSE(sketch_distance({1, 2}, {1, 2, 3}));
  EXPECT_FALSE(sketch_distance({}, {}));
}

TEST(CountSketch, WhatItCannotSketchTheSameWayGivesNoSketch) {
  auto scheme = scheme_of(kScheme);
  ASSERT_TRUE(scheme);
  const std::vector<float> x{1, 2, 3, 4};
  EXPECT_TRUE(sketch_of(view_of(x, true), *scheme).empty());  // Fortran order: not row-major storage
  const std::vector<float> inf{1, std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(sketch_of(view_of(inf), *scheme).empty());
}

TEST(CountSketch, OnlyTheSchemeThisCodeComputesIsAccepted) {
  EXPECT_TRUE(scheme_of(kScheme));
  auto with = [](const std::string& from, const std::string& to) {
    std::string s = kScheme;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_FALSE(scheme_of(with("count-sketch", "ams")));
  EXPECT_FALSE(scheme_of(with("row-major", "column-major")));
  EXPECT_FALSE(scheme_of(with("\"prime\":2147483647", "\"prime\":4294967311")));  // products past 2^62
  EXPECT_FALSE(scheme_of(with("\"a\":1103515245", "\"a\":2147483647")));          // not below the prime
  EXPECT_FALSE(scheme_of(with("\"buckets\":64", "\"buckets\":0")));
  EXPECT_FALSE(scheme_of(with(",\"c\":506952114", "")));
  EXPECT_NE(*scheme_of(kScheme), *scheme_of(with("\"c\":506952114", "\"c\":1")));
}

}  // namespace
}  // namespace banjia::compare
