// Helpers for the tokenizer tests: readable token lists and the lossless property.
#pragma once
#include <algorithm>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "python/tokenizer.h"

namespace tokenizer_test {

using banjia::python::FStringMode;
using banjia::python::Token;
using banjia::python::TokenKind;
using banjia::python::TokenStream;

// "KIND text" for every token except Whitespace, e.g. {"NAME x", "OP =", "NUMBER 1", "NEWLINE \n"}.
inline std::vector<std::string> describe(std::string_view src, const TokenStream& ts, bool keep_ws = false) {
  std::vector<std::string> out;
  for (const Token& t : ts.tokens) {
    if (t.kind == TokenKind::Whitespace && !keep_ws) continue;
    out.push_back(std::string(banjia::python::token_kind_name(t.kind)) + " " + std::string(t.text(src)));
  }
  return out;
}

// Tokens tile the source: contiguous, in order, covering every byte.
inline void expect_lossless(std::string_view src, const TokenStream& ts) {
  uint32_t pos = 0;
  for (const Token& t : ts.tokens) {
    ASSERT_EQ(t.begin, pos) << "gap or overlap before a " << banjia::python::token_kind_name(t.kind);
    ASSERT_LE(t.begin, t.end);
    pos = t.end;
  }
  ASSERT_EQ(pos, src.size());
  ASSERT_FALSE(ts.tokens.empty());
  EXPECT_EQ(ts.tokens.back().kind, TokenKind::EndMarker);
}

inline TokenStream lex(std::string_view src, FStringMode mode = FStringMode::py312) {
  TokenStream ts = banjia::python::tokenize(src, mode);
  expect_lossless(src, ts);
  return ts;
}

}  // namespace tokenizer_test
