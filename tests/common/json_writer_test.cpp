#include <gtest/gtest.h>

#include "common/json_writer.h"

using banjia::JsonWriter;

TEST(JsonWriter, EscapesControlAndQuotes) {
  JsonWriter w(false);
  w.begin_object().field("k", std::string_view("a\"b\\c\n\x01")).end_object();
  EXPECT_EQ(w.str(), R"({"k":"a\"b\\c\n\u0001"})");
}

TEST(JsonWriter, ReplacesInvalidUtf8) {
  JsonWriter w(false);
  w.value(std::string_view("x\xff y\xc3\xa9"));
  EXPECT_EQ(w.str(), "\"x\xEF\xBF\xBD y\xc3\xa9\"");
}

TEST(JsonWriter, NonFiniteBecomesNull) {
  JsonWriter w(false);
  w.begin_array().value(1.5).value(std::numeric_limits<double>::infinity()).value(int64_t{-3}).end_array();
  EXPECT_EQ(w.str(), "[1.5,null,-3]");
}

TEST(JsonWriter, NestedPrettyIsIndented) {
  JsonWriter w(true);
  w.begin_object().key("a").begin_array().value(1).end_array().key("b").begin_object().end_object().end_object();
  EXPECT_EQ(w.str(), "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}");
}
