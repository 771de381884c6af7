#include <gtest/gtest.h>

#include "python/module.h"

using namespace banjia::python;

namespace {
struct Parsed {
  std::string src;
  TokenStream ts;
  ModuleView view;
  explicit Parsed(std::string s) : src(std::move(s)), ts(tokenize(src)), view(build_view(src, ts)) {}
  std::string stmt_text(size_t i) const {
    const auto& st = view.statements.at(i);
    std::string out;
    for (uint32_t k = st.first_sig; k <= st.last_sig; ++k) {
      if (k > st.first_sig) out += ' ';
      out += view.text(k);
    }
    return out;
  }
  uint32_t sig_of(std::string_view text, int nth = 0) const {
    for (uint32_t k = 0; k < view.sig.size(); ++k)
      if (view.text(k) == text && nth-- == 0) return k;
    ADD_FAILURE() << "no token " << text;
    return 0;
  }
};
}  // namespace

TEST(ModuleView, SignificantTokensSkipTrivia) {
  Parsed p("x = 1  # c\n\n(a,\n b)\n");
  for (uint32_t k : p.view.sig) {
    TokenKind kind = p.ts.tokens[k].kind;
    EXPECT_TRUE(kind != TokenKind::Whitespace && kind != TokenKind::Comment && kind != TokenKind::NL);
  }
  EXPECT_EQ(p.view.text(0), "x");
}

TEST(ModuleView, BracketsMatchAcrossLines) {
  Parsed p("f(a[1], {2: (3)},\n  g())\n");
  uint32_t open = p.sig_of("(");
  uint32_t close = p.sig_of(")", 2);  // (3) and g() close first
  EXPECT_EQ(p.view.match[open], static_cast<int32_t>(close));
  EXPECT_EQ(p.view.match[close], static_cast<int32_t>(open));
  uint32_t brace = p.sig_of("{");
  EXPECT_EQ(p.view.text(static_cast<uint32_t>(p.view.match[brace])), "}");
  EXPECT_EQ(p.view.match[p.sig_of("f")], -1);
}

TEST(ModuleView, MismatchedBracketsStayUnmatched) {
  Parsed p("x = (1]\ny = [2]\n");
  EXPECT_EQ(p.view.match[p.sig_of("(")], -1);
  EXPECT_EQ(p.view.match[p.sig_of("]")], -1);
  uint32_t open = p.sig_of("[");
  EXPECT_EQ(p.view.match[open], static_cast<int32_t>(p.sig_of("]", 1)));
}

TEST(ModuleView, StatementsSplitAtSemicolonsAndCompoundHeaders) {
  Parsed p("import os; import torch\nif x: y = 1\nfor i in range(3):\n    z = {1: 2}\n");
  ASSERT_EQ(p.view.statements.size(), 6u);
  EXPECT_EQ(p.stmt_text(0), "import os");
  EXPECT_EQ(p.stmt_text(1), "import torch");
  EXPECT_EQ(p.stmt_text(2), "if x :");
  EXPECT_EQ(p.stmt_text(3), "y = 1");
  EXPECT_EQ(p.view.statements[3].indent_depth, 1);
  EXPECT_EQ(p.stmt_text(4), "for i in range ( 3 ) :");
  EXPECT_EQ(p.stmt_text(5), "z = { 1 : 2 }");
  EXPECT_EQ(p.view.statements[5].indent_depth, 1);
  EXPECT_EQ(p.view.stmt_of[p.sig_of("torch")], 1u);
}

TEST(ModuleView, AnnotationsAndLambdasAreNotHeaders) {
  Parsed p("x: int = 3\nf = lambda a: a\n");
  ASSERT_EQ(p.view.statements.size(), 2u);
  EXPECT_EQ(p.stmt_text(0), "x : int = 3");
  EXPECT_EQ(p.stmt_text(1), "f = lambda a : a");
}

TEST(ModuleView, FStringStartMatchesEnd) {
  Parsed p("s = f'{a(1)}'\n");
  uint32_t start = 2;
  ASSERT_EQ(p.view.tok(start).kind, TokenKind::FStringStart);
  EXPECT_EQ(p.view.tok(static_cast<uint32_t>(p.view.match[start])).kind, TokenKind::FStringEnd);
}

TEST(CallArguments, PositionalKeywordAndStarred) {
  Parsed p("torch.load(path, *extra, map_location={'cuda:0': 'cpu'}, weights_only=f(a, b), **kw)\n");
  uint32_t open = p.sig_of("(");
  auto args = call_arguments(p.view, open);
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[0].position, 0);
  EXPECT_EQ(p.view.text(args[0].first_sig), "path");
  EXPECT_TRUE(args[1].star);
  EXPECT_EQ(args[2].keyword, "map_location");
  EXPECT_EQ(p.view.text(args[2].first_sig), "{");
  EXPECT_EQ(p.view.text(args[2].last_sig), "}");
  EXPECT_EQ(args[3].keyword, "weights_only");
  EXPECT_EQ(p.view.text(args[3].last_sig), ")");
  EXPECT_TRUE(args[4].double_star);
  ASSERT_NE(find_keyword(args, "map_location"), nullptr);
  EXPECT_EQ(find_keyword(args, "device"), nullptr);
  ASSERT_NE(find_positional(args, 0), nullptr);
  EXPECT_EQ(find_positional(args, 1), nullptr);
}

TEST(CallArguments, EmptyTrailingCommaAndGenerator) {
  Parsed p("f()\ng(a,)\nh(x for x in y)\n");
  EXPECT_TRUE(call_arguments(p.view, p.sig_of("(")).empty());
  EXPECT_EQ(call_arguments(p.view, p.sig_of("(", 1)).size(), 1u);
  auto gen = call_arguments(p.view, p.sig_of("(", 2));
  ASSERT_EQ(gen.size(), 1u);
  EXPECT_EQ(p.view.text(gen[0].last_sig), "y");
}

TEST(CallArguments, EqualityIsNotAKeyword) {
  Parsed p("f(a == 'cuda', device = 'cuda')\n");
  auto args = call_arguments(p.view, p.sig_of("("));
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].position, 0);
  EXPECT_EQ(args[1].keyword, "device");
  EXPECT_EQ(p.view.text(args[1].first_sig), "'cuda'");
}

TEST(CallArguments, UnclosedCallHasNoArguments) {
  Parsed p("f(a, b\n");
  EXPECT_TRUE(call_arguments(p.view, p.sig_of("(")).empty());
  EXPECT_TRUE(call_arguments(p.view, 999).empty());
}

// A '.' right before a statement-ending ';' does not make the next statement's first name an attribute.
TEST(ModuleView, NameAfterDotSemicolonStartsAChain) {
  Parsed p("import torch as th.;th.cuda.o()\n");
  // import torch as th . ; th . cuda . o ( ) NEWLINE ENDMARKER: every name but cuda and o is a head.
  EXPECT_EQ(p.view.name_heads, (std::vector<uint32_t>{0, 1, 2, 3, 6}));
}

TEST(ModuleView, ReusedViewIsReset) {
  Parsed big("import torch\nif a:\n    f(x, [y])\n    g()\n");
  std::string src = "z = (1)\n";
  TokenStream ts = tokenize(src);
  build_view(src, ts, big.view);  // reuse the first view's vectors
  EXPECT_EQ(big.view.sig.size(), 7u);  // z = ( 1 ) NEWLINE ENDMARKER
  EXPECT_EQ(big.view.match.size(), big.view.sig.size());
  ASSERT_EQ(big.view.statements.size(), 1u);
  EXPECT_EQ(big.view.statements[0].last_sig, 4u);
  EXPECT_EQ(big.view.match[2], 4);
  EXPECT_EQ(big.view.name_heads, (std::vector<uint32_t>{0}));
}
