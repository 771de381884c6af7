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

// Every byte that needs care, at every offset of strings long enough for the 16-byte runs the
// writer copies at once (and their tails), against the escaping RFC 8259 asks for, written out here
// case by case: '"' '\\' and control bytes escaped, DEL and UTF-8 kept, an invalid byte as U+FFFD.
TEST(JsonWriter, EscapesAtEveryOffsetOfLongStrings) {
  struct Case {
    std::string_view raw, escaped;
  };
  const Case cases[] = {{"\"", "\\\""},     {"\\", "\\\\"},        {"\n", "\\n"},      {"\t", "\\t"},
                        {"\x01", "\\u0001"}, {"\x1f", "\\u001f"}, {"\x7f", "\x7f"},   {" ", " "},
                        {"\xc3\xa9", "\xc3\xa9"}, {"\xe2\x82\xac", "\xe2\x82\xac"}, {"\xff", "\xEF\xBF\xBD"},
                        {"\x80", "\xEF\xBF\xBD"}};
  for (const Case& c : cases)
    for (size_t len : {15u, 16u, 17u, 31u, 32u, 47u})
      for (size_t at = 0; at <= len; ++at) {
        const std::string before(at, 'a'), after(len - at, 'z');
        JsonWriter w(false);
        w.value(before + std::string(c.raw) + after);
        EXPECT_EQ(w.str(), "\"" + before + std::string(c.escaped) + after + "\"") << "byte at " << at << " of " << len;
      }
}
