// PEP 701 f-strings in py312 mode; py311 mode keeps them whole (as CPython 3.11's tokenize).
#include "tokenizer_test_util.h"

using namespace tokenizer_test;
using V = std::vector<std::string>;

TEST(FString, Py311ModeKeepsAnFStringWhole) {
  std::string src = "s = f'{a!r:>{w}}'\n";
  auto ts = lex(src, FStringMode::py311);
  EXPECT_EQ(describe(src, ts), (V{"NAME s", "OP =", "STRING f'{a!r:>{w}}'", "NEWLINE \n", "ENDMARKER "}));
}

TEST(FString, NestedSameQuotesAndFormatSpec) {
  std::string src = "f\"{x[\"k\"]:{w}}\"\n";
  auto ts = lex(src);
  EXPECT_FALSE(ts.error) << ts.error->message;
  EXPECT_EQ(describe(src, ts), (V{"FSTRING_START f\"", "OP {", "NAME x", "OP [", "STRING \"k\"", "OP ]", "OP :",
                                  "OP {", "NAME w", "OP }", "OP }", "FSTRING_END \"", "NEWLINE \n", "ENDMARKER "}));
}

TEST(FString, LiteralTextConversionAndDebugEquals) {
  std::string src = "f'a {b!r} c {d=} {{e}} {g:%H:%M}'\n";
  auto ts = lex(src);
  EXPECT_FALSE(ts.error);
  EXPECT_EQ(describe(src, ts), (V{"FSTRING_START f'", "FSTRING_MIDDLE a ", "OP {", "NAME b", "OP !", "NAME r", "OP }",
                                  "FSTRING_MIDDLE  c ", "OP {", "NAME d", "OP =", "OP }", "FSTRING_MIDDLE  {{e}} ",
                                  "OP {", "NAME g", "OP :", "FSTRING_MIDDLE %H:%M", "OP }", "FSTRING_END '",
                                  "NEWLINE \n", "ENDMARKER "}));
}

TEST(FString, NestedFStringsAndCallsInsideFields) {
  std::string src = "f'{f\"{torch.cuda.device_count()}\"}'\n";
  auto ts = lex(src);
  EXPECT_FALSE(ts.error);
  EXPECT_EQ(describe(src, ts), (V{"FSTRING_START f'", "OP {", "FSTRING_START f\"", "OP {", "NAME torch", "OP .",
                                  "NAME cuda", "OP .", "NAME device_count", "OP (", "OP )", "OP }", "FSTRING_END \"",
                                  "OP }", "FSTRING_END '", "NEWLINE \n", "ENDMARKER "}));
}

TEST(FString, TripleQuotedMultiLineWithDictAndLambda) {
  std::string src = "x = rf'''a\\\n{ {1: 2}[1] }\n{(lambda: 3)()}'''\ny\n";
  auto ts = lex(src);
  EXPECT_FALSE(ts.error);
  auto d = describe(src, ts);
  EXPECT_EQ(d.front(), "NAME x");
  EXPECT_EQ(d[2], "FSTRING_START rf'''");
  EXPECT_EQ(d[3], "FSTRING_MIDDLE a\\\n");  // raw: the backslash stays literal text
  EXPECT_NE(std::find(d.begin(), d.end(), "FSTRING_END '''"), d.end());
  EXPECT_NE(std::find(d.begin(), d.end(), "NAME lambda"), d.end());
  const Token& y = ts.tokens[ts.tokens.size() - 3];
  EXPECT_EQ(y.text(src), "y");
  EXPECT_EQ(y.line, 4u);
}

TEST(FString, NamedUnicodeEscapeIsNotAField) {
  std::string src = "f'\\N{DEGREE SIGN}{t}'\n";
  auto ts = lex(src);
  EXPECT_EQ(describe(src, ts), (V{"FSTRING_START f'", "FSTRING_MIDDLE \\N{DEGREE SIGN}", "OP {", "NAME t", "OP }",
                                  "FSTRING_END '", "NEWLINE \n", "ENDMARKER "}));
}

TEST(FString, UnterminatedFStringIsAnErrorAndTokenizingContinues) {
  std::string src = "a = f'{x}\nb = 1\n";
  auto ts = lex(src);
  ASSERT_TRUE(ts.error);
  EXPECT_EQ(ts.error->line, 1u);
  EXPECT_EQ(ts.error->col, 4u);
  auto d = describe(src, ts);
  EXPECT_NE(std::find(d.begin(), d.end(), "NAME b"), d.end());
}

TEST(FString, DeepNestingUsesNoRecursion) {
  // f'{f'{f'{...}'}'}' nested 20000 levels deep (quotes alternate to stay valid before 3.12 too).
  std::string open, close;
  for (int i = 0; i < 20000; ++i) {
    char q = i % 2 ? '"' : '\'';
    open += std::string("f") + q + "{";
    close = std::string("}") + q + close;
  }
  std::string src = "x = " + open + "1" + close + "\n";
  auto ts = lex(src);
  EXPECT_FALSE(ts.error);
}

TEST(FString, UnclosedNamedEscapesStayLinear) {
  std::string src = "x = f'";
  for (int i = 0; i < 100000; ++i) src += "\\N{";
  src += "'\n";
  auto ts = lex(src);  // lossless, and linear: the search for each '}' is bounded
  EXPECT_TRUE(ts.error);  // the '{' after an unclosed \N opens a field that never closes
  EXPECT_EQ(describe(src, ts).back(), "ENDMARKER ");
}
