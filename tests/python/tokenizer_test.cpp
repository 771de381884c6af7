#include <random>

#include "tokenizer_test_util.h"

using namespace tokenizer_test;
using V = std::vector<std::string>;

TEST(Tokenizer, SimpleStatementWithPositions) {
  std::string src = "x = foo(1)\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME x", "OP =", "NAME foo", "OP (", "NUMBER 1", "OP )", "NEWLINE \n", "ENDMARKER "}));
  EXPECT_FALSE(ts.error);
  const Token& foo = ts.tokens[4];  // x, ws, =, ws, foo
  EXPECT_EQ(foo.text(src), "foo");
  EXPECT_EQ(foo.line, 1u);
  EXPECT_EQ(foo.col, 4u);
  EXPECT_EQ(token_end(foo, src).col, 7u);
  EXPECT_EQ(ts.tokens.back().line, 2u);
}

TEST(Tokenizer, CrlfLineEndsAreNewlineTokens) {
  std::string src = "if a:\r\n    b\r\n\r\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME if", "NAME a", "OP :", "NEWLINE \r\n", "INDENT     ", "NAME b",
                                  "NEWLINE \r\n", "NL \r\n", "DEDENT ", "ENDMARKER "}));
  EXPECT_EQ(ts.tokens.back().line, 4u);
}

TEST(Tokenizer, LoneCarriageReturnEndsALine) {
  std::string src = "a = 1\rb = 2\r";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME a", "OP =", "NUMBER 1", "NEWLINE \r", "NAME b", "OP =", "NUMBER 2",
                                  "NEWLINE \r", "ENDMARKER "}));
  EXPECT_EQ(ts.tokens[8].line, 2u);  // b
}

TEST(Tokenizer, TabsAndFormFeedInIndentation) {
  // A tab advances to the next multiple of 8, so "\t" and 8 spaces are the same level; a form
  // feed resets the column, so "\f" + 8 spaces is that level too (Python's tokenizer rules).
  std::string src = "if a:\n\tb\n        c\n \f        d\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME if", "NAME a", "OP :", "NEWLINE \n", "INDENT \t", "NAME b", "NEWLINE \n",
                                  "NAME c", "NEWLINE \n", "NAME d", "NEWLINE \n", "DEDENT ", "ENDMARKER "}));
  // tokenize.py stops there; CPython's compiler also measures a tab as one column and rejects a line
  // whose level depends on the tab's width (TabError): "\t" and 8 spaces are not the same level to it.
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->line, 3u);
  EXPECT_EQ(ts.error->message, "inconsistent use of tabs and spaces in indentation");
  std::string spaces = "if a:\n        b\n \f        d\nif c:\n\tif e:\n\t\tf\n";  // compile() takes it
  EXPECT_FALSE(lex(spaces).error);
}

TEST(Tokenizer, InconsistentDedentIsAnError) {
  std::string src = "if a:\n    b\n  c\n";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->line, 3u);
  EXPECT_NE(ts.error->message.find("unindent"), std::string::npos);
}

TEST(Tokenizer, BackslashContinuationIsTrivia) {
  std::string src = "x = 1 + \\\n    2\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME x", "OP =", "NUMBER 1", "OP +", "NUMBER 2", "NEWLINE \n", "ENDMARKER "}));
  bool found = false;
  for (const Token& t : ts.tokens)
    if (t.kind == TokenKind::Whitespace && t.text(src) == "\\\n") found = true;
  EXPECT_TRUE(found);
  EXPECT_EQ(ts.tokens[ts.tokens.size() - 3].line, 2u);  // "2"
}

TEST(Tokenizer, NewlinesInsideBracketsAreNL) {
  std::string src = "f(a,\n  b)\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME f", "OP (", "NAME a", "OP ,", "NL \n", "NAME b", "OP )", "NEWLINE \n", "ENDMARKER "}));
}

TEST(Tokenizer, AllStringPrefixesAndTripleQuotes) {
  std::string src = "a = b'x' rb'\\d' BR\"y\" u'z' R'''q\n''' Rb\"\"\"w\"\"\" fr'{x}' 'it\\'s'\n";
  auto ts = lex(src, FStringMode::py311);
  EXPECT_EQ(describe(src, ts), (V{"NAME a", "OP =", "STRING b'x'", "STRING rb'\\d'", "STRING BR\"y\"", "STRING u'z'",
                                  "STRING R'''q\n'''", "STRING Rb\"\"\"w\"\"\"", "STRING fr'{x}'", "STRING 'it\\'s'",
                                  "NEWLINE \n", "ENDMARKER "}));
  EXPECT_FALSE(ts.error);
}

TEST(Tokenizer, InvalidPrefixIsANameThenAString) {
  std::string src = "ub'x' bf'y'\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME ub", "STRING 'x'", "NAME bf", "STRING 'y'", "NEWLINE \n", "ENDMARKER "}));
}

TEST(Tokenizer, MultiLineStringPositions) {
  std::string src = "s = '''a\nbc'''\nt = 1\n";
  auto ts = lex(src);
  const Token& s = ts.tokens[4];
  ASSERT_EQ(s.kind, TokenKind::String);
  EXPECT_EQ(s.line, 1u);
  EXPECT_EQ(s.col, 4u);
  EXPECT_EQ(token_end(s, src).line, 2u);
  EXPECT_EQ(token_end(s, src).col, 5u);
  EXPECT_EQ(ts.tokens[6].text(src), "t");
  EXPECT_EQ(ts.tokens[6].line, 3u);
}

TEST(Tokenizer, UnterminatedStringReportsItsStart) {
  std::string src = "x = 1\ny = 'abc\nz = 2\n";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->line, 2u);
  EXPECT_EQ(ts.error->col, 4u);
  EXPECT_NE(ts.error->message.find("unterminated string literal"), std::string::npos);
  // Tokenizing goes on: z = 2 is still there.
  auto d = describe(src, ts);
  EXPECT_NE(std::find(d.begin(), d.end(), "NAME z"), d.end());
}

TEST(Tokenizer, UnterminatedTripleQuotedStringRunsToEof) {
  std::string src = "x = \"\"\"never\nclosed\n";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->line, 1u);
  EXPECT_EQ(ts.error->col, 4u);
  EXPECT_NE(ts.error->message.find("triple-quoted"), std::string::npos);
}

TEST(Tokenizer, NumbersFollowTheGrammar) {
  std::string src = "0x_1F 0b10 0o7 1_000 1. .5 1e-3 2j 1.5J 0777 1e\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NUMBER 0x_1F", "NUMBER 0b10", "NUMBER 0o7", "NUMBER 1_000", "NUMBER 1.", "NUMBER .5",
                                  "NUMBER 1e-3", "NUMBER 2j", "NUMBER 1.5J", "NUMBER 0", "NUMBER 777", "NUMBER 1",
                                  "NAME e", "NEWLINE \n", "ENDMARKER "}));
}

TEST(Tokenizer, OperatorsTakeTheLongestMatch) {
  std::string src = "a **= b // c -> d := e ... f != g <<= h\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME a", "OP **=", "NAME b", "OP //", "NAME c", "OP ->", "NAME d", "OP :=", "NAME e",
                                  "OP ...", "NAME f", "OP !=", "NAME g", "OP <<=", "NAME h", "NEWLINE \n", "ENDMARKER "}));
}

TEST(Tokenizer, NonAsciiIdentifiersCountColumnsInCodePoints) {
  std::string src = "größe = 变量\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME größe", "OP =", "NAME 变量", "NEWLINE \n", "ENDMARKER "}));
  EXPECT_EQ(token_end(ts.tokens[0], src).col, 5u);
  EXPECT_EQ(ts.tokens[4].col, 8u);
  EXPECT_EQ(token_end(ts.tokens[4], src).col, 10u);
}

TEST(Tokenizer, MissingFinalNewlineGetsAnEmptyNewline) {
  std::string src = "if x:\n    y";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME if", "NAME x", "OP :", "NEWLINE \n", "INDENT     ", "NAME y", "NEWLINE ",
                                  "DEDENT ", "ENDMARKER "}));
  const Token& nl = ts.tokens[7];  // if ws x : NEWLINE INDENT y NEWLINE
  EXPECT_EQ(nl.begin, nl.end);
  EXPECT_EQ(nl.line, 2u);
  EXPECT_EQ(nl.col, 5u);
  EXPECT_EQ(ts.tokens.back().line, 3u);
}

TEST(Tokenizer, CommentsAndBlankLinesDoNotChangeIndentation) {
  std::string src = "if x:\n    a\n# c\n\n    b\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"NAME if", "NAME x", "OP :", "NEWLINE \n", "INDENT     ", "NAME a", "NEWLINE \n",
                                  "COMMENT # c", "NL \n", "NL \n", "NAME b", "NEWLINE \n", "DEDENT ", "ENDMARKER "}));
}

TEST(Tokenizer, UnknownCharactersAreErrorTokens) {
  std::string src = "a = $b\n";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->col, 4u);
  // Like tokenize.py, the blank before the bad character is an error token too.
  EXPECT_EQ(describe(src, ts), (V{"NAME a", "OP =", "ERRORTOKEN  ", "ERRORTOKEN $", "NAME b", "NEWLINE \n", "ENDMARKER "}));
}

TEST(Tokenizer, UnbalancedBracketsAreReported) {
  auto ts = lex("x = (1,\n");
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->message, "'(' was never closed");
  EXPECT_EQ(ts.error->col, 4u);
  auto ts2 = lex("x = 1)\ny = 2\n");
  ASSERT_TRUE(ts2.error);
  EXPECT_EQ(ts2.error->message, "unmatched ')'");
}

TEST(Tokenizer, DeepNestingDoesNotOverflow) {
  std::string src = "x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n";
  auto ts = lex(src);
  EXPECT_FALSE(ts.error);
  std::string unclosed = std::string(100000, '[');
  auto ts2 = lex(unclosed);
  EXPECT_TRUE(ts2.error);
}

TEST(Tokenizer, OneMegabyteSingleLine) {
  std::string src = "x = [";
  while (src.size() < (1u << 20)) src += "a.b(1, 'c'), ";
  src += "]";  // no final newline either
  auto ts = lex(src);
  EXPECT_FALSE(ts.error);
  EXPECT_EQ(ts.tokens.back().line, 2u);
}

TEST(Tokenizer, RandomBinaryJunkNeverCrashes) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    std::string src(1 + rng() % 400, '\0');
    for (char& c : src) c = static_cast<char>(rng() % 256);
    lex(src, FStringMode::py312);
    lex(src, FStringMode::py311);
  }
  // Python-ish junk: quotes, brackets, braces and backslashes in random order.
  const std::string alphabet = "f'\"{}[]()\\:!=#\n\r\t x1.";
  for (int round = 0; round < 2000; ++round) {
    std::string src(1 + rng() % 60, ' ');
    for (char& c : src) c = alphabet[rng() % alphabet.size()];
    lex(src, FStringMode::py312);
    lex(src, FStringMode::py311);
  }
}

TEST(Tokenizer, ReusedStreamIsReset) {
  TokenStream ts;
  banjia::python::tokenize("x = 'open\n", FStringMode::py312, ts);
  ASSERT_TRUE(ts.error);
  std::string src = "y = 2\n";
  banjia::python::tokenize(src, FStringMode::py312, ts);
  EXPECT_FALSE(ts.error);
  expect_lossless(src, ts);
  EXPECT_EQ(describe(src, ts), (V{"NAME y", "OP =", "NUMBER 2", "NEWLINE \n", "ENDMARKER "}));
}

TEST(Tokenizer, ManyErrorsOnALongNonAsciiLineStayLinear) {
  // Columns are counted incrementally; error recovery must not recount the line for every error
  // (that would be quadratic here: 100k errors on one 400 KB line).
  std::string src = "é =";
  for (int i = 0; i < 100000; ++i) src += " $";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  const Token& last_err = ts.tokens[ts.tokens.size() - 3];  // ... ERRORTOKEN $, NEWLINE '', ENDMARKER
  EXPECT_EQ(last_err.kind, TokenKind::ErrorToken);
  EXPECT_EQ(last_err.col, 3u + 2u * 100000u - 1u);
}

TEST(Tokenizer, EscapedQuotesAfterAnUnterminatedStringStayLinear) {
  // Each \' is an escaped quote for the first string but starts a new (also unterminated) one
  // after error recovery; 200k of them on one line must not be rescanned to the line end each time.
  std::string src = "x = '";
  for (int i = 0; i < 200000; ++i) src += "\\'";
  src += "\ny = 1\n";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->line, 1u);
  EXPECT_EQ(ts.error->col, 4u);
  auto d = describe(src, ts);
  EXPECT_EQ(d[d.size() - 5], "NAME y");
  size_t errors = 0;
  for (const Token& t : ts.tokens) errors += t.kind == TokenKind::ErrorToken;
  EXPECT_EQ(errors, 2u + 2u * 200000u);  // the blank and first quote, then each backslash and quote
}
