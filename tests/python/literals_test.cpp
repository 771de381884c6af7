#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "python/literals.h"
#include "python/tokenizer.h"
#include "python_corpora.h"

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

TEST(Literals, BodyFirstByteWithoutSplitting) {
  EXPECT_EQ(string_body_first_byte("'cuda:0'"), 'c');
  EXPECT_EQ(string_body_first_byte("rb'''x'''"), 'x');
  EXPECT_EQ(string_body_first_byte("f\"{d}\""), '{');
  EXPECT_EQ(string_body_first_byte("b\"\\n\""), '\\');
  EXPECT_EQ(string_body_first_byte("''"), '\'');          // empty body: the closing quote
  EXPECT_EQ(string_body_first_byte("\"\"\"\"\"\""), '"');  // empty triple-quoted body
  EXPECT_EQ(string_body_first_byte("cuda"), '\0');        // not a literal
  EXPECT_EQ(string_body_first_byte(""), '\0');
}

// On every string literal of the stdlib the shortcut agrees with the full split.
TEST(Literals, BodyFirstByteAgreesWithTheSplitOnTheStdlib) {
  const auto stdlib = banjia::test::python_stdlib();
  BANJIA_REQUIRE_CORPUS(stdlib);
  size_t literals = 0;
  for (const auto& path : banjia::test::python_files(stdlib.dir, true)) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const TokenStream ts = tokenize(text, FStringMode::py311);  // f-strings whole, as String tokens
    for (const Token& t : ts.tokens) {
      if (t.kind != TokenKind::String) continue;
      const std::string_view s = t.text(text);
      const auto lit = split_string_literal(s);
      if (!lit || lit->body.empty()) continue;
      ++literals;
      ASSERT_EQ(string_body_first_byte(s), lit->body[0]) << path << ": " << s.substr(0, 40);
    }
  }
  EXPECT_GT(literals, 50000u);  // the corpus was read (about 93,000 non-empty literals in the 3.11 stdlib)
}
