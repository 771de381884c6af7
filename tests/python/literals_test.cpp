#include <gtest/gtest.h>

#include "python/literals.h"

using namespace banjia::python;

TEST(Literals, SplitsPrefixQuotesAndBody) {
  auto lit = split_string_literal("rb'''a\\nb'''");
  ASSERT_TRUE(lit);
  EXPECT_EQ(lit->prefix, "rb");
  EXPECT_EQ(lit->body, "a\\nb");
  EXPECT_TRUE(lit->triple);
  EXPECT_TRUE(lit->raw);
  EXPECT_TRUE(lit->bytes);
  EXPECT_FALSE(lit->fstring);
  EXPECT_EQ(lit->quote, '\'');
}

TEST(Literals, FStringStartHasNoBody) {
  auto lit = split_string_literal("F\"");
  ASSERT_TRUE(lit);
  EXPECT_TRUE(lit->fstring);
  EXPECT_EQ(lit->body, "");
}

TEST(Literals, RejectsNonStrings) {
  EXPECT_FALSE(split_string_literal("cuda"));
  EXPECT_FALSE(split_string_literal("'abc"));
  EXPECT_FALSE(split_string_literal(""));
}

TEST(Literals, SimpleValues) {
  EXPECT_EQ(simple_string_value("'cuda:0'"), "cuda:0");
  EXPECT_EQ(simple_string_value("\"nccl\""), "nccl");
  EXPECT_EQ(simple_string_value("f'cuda'"), "cuda");
  EXPECT_EQ(simple_string_value("''"), "");
  EXPECT_FALSE(simple_string_value("f'cuda:{rank}'"));
  EXPECT_FALSE(simple_string_value("'cu\\x64a'"));
  EXPECT_FALSE(simple_string_value("f'"));
}
