// Inputs the fuzzer (fuzz/env_parse_fuzzer.cpp) found to break the shell lexer, kept as tests.
#include <gtest/gtest.h>

#include <string_view>

#include "env/env_file.h"
#include "env/shell_lexer.h"
#include "env/translate.h"

namespace banjia::env {
namespace {

// A backslash as the very last byte used to leave the lexer one past the end, so the last word's
// byte range ended outside the text (and `translate` read past the buffer).
TEST(EnvShellFuzzRegression, TrailingBackslashKeepsRangesInsideText) {
  for (std::string_view text : {std::string_view("python train.py \\"), std::string_view("\\"),
                                std::string_view("export A=1 b\\")}) {
    ShellLexResult r = lex_shell(text);
    ASSERT_FALSE(r.commands.empty()) << text;
    const ShellWord& last = r.commands.back().words.back();
    EXPECT_EQ(last.end, text.size()) << text;
    EXPECT_LE(last.begin, last.end);
    for (EnvFileKind kind : {EnvFileKind::shell, EnvFileKind::dotenv, EnvFileKind::dockerfile}) {
      std::vector<ShellEdit> edits;
      EXPECT_EQ(translate_env_file(text, kind, edits), text);
      EXPECT_TRUE(edits.empty());
    }
  }
}

}  // namespace
}  // namespace banjia::env

namespace banjia::env {
namespace {

// Dropping every allocator option of `PYTORCH_CUDA_ALLOC_CONF=a()...` used to leave `..._CONF=()`, an
// array assignment that swallowed the rest of the line, so a second translate renamed more variables.
TEST(EnvShellFuzzRegression, EmptiedValueBeforeParenthesisStaysAWord) {
  const std::string_view text = "PYTORCH_CUDA_ALLOC_CONF=a()A CUDA_VISIBLE_DEVICES=";
  std::vector<ShellEdit> edits;
  std::string once = translate_env_file(text, EnvFileKind::shell, edits);
  EXPECT_EQ(once, "PYTORCH_NPU_ALLOC_CONF=\"\"()A CUDA_VISIBLE_DEVICES=");
  std::vector<ShellEdit> again;
  EXPECT_EQ(translate_env_file(once, EnvFileKind::shell, again), once);
  EXPECT_TRUE(again.empty());
}

}  // namespace
}  // namespace banjia::env
