// Inputs the fuzzer (fuzz/env_parse_fuzzer.cpp) found to break the shell lexer, kept as tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "env/readers/env_file.h"
#include "env/readers/shell_lexer.h"
#include "env/analysis/translate.h"

namespace banjia::env {
namespace {

bool reports_parse_error(const std::vector<Finding>& notes) {
  return std::any_of(notes.begin(), notes.end(), [](const Finding& f) { return f.rule == "env-parse-error"; });
}

// Translates `text` as a Dockerfile, checks a second translate changes nothing, and returns the first.
std::string translate_dockerfile_stably(std::string_view text, std::vector<Finding>* notes) {
  std::vector<ShellEdit> edits;
  const std::string once = translate_env_file(text, EnvFileKind::dockerfile, edits, notes);
  std::vector<ShellEdit> again;
  EXPECT_EQ(translate_env_file(once, EnvFileKind::dockerfile, again), once);
  return once;
}

// trailing-backslash (docs/fuzzing.md): a backslash as the very last byte must not leave the lexer
// one past the end, or the last word's byte range ends outside the text and `translate` reads past
// the buffer.
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

// emptied-value-paren: dropping every allocator option of `PYTORCH_CUDA_ALLOC_CONF=a()...` must not
// leave `..._CONF=()`, an array assignment that swallows the rest of the line (a second translate
// would rename more variables).
TEST(EnvShellFuzzRegression, EmptiedValueBeforeParenthesisStaysAWord) {
  const std::string_view text = "PYTORCH_CUDA_ALLOC_CONF=a()A CUDA_VISIBLE_DEVICES=";
  std::vector<ShellEdit> edits;
  std::string once = translate_env_file(text, EnvFileKind::shell, edits);
  EXPECT_EQ(once, "PYTORCH_NPU_ALLOC_CONF=\"\"()A CUDA_VISIBLE_DEVICES=");
  std::vector<ShellEdit> again;
  EXPECT_EQ(translate_env_file(once, EnvFileKind::shell, again), once);
  EXPECT_TRUE(again.empty());
}

// requote-literal-dollar: the value kept after dropping option 'a' holds a '$' that the original
// single quotes make literal; written back unquoted, '$CUDA_VISIBLE_DEVICES' would be an expansion
// (renamed by the next translate). Whatever the file kind, the rewritten value must read back as the
// kept options.
TEST(EnvShellFuzzRegression, RewrittenValueKeepsItsLiteralDollar) {
  const std::string kept = "max_split_size_mb:$CUDA_VISIBLE_DEVICES";
  for (EnvFileKind kind : {EnvFileKind::shell, EnvFileKind::dotenv, EnvFileKind::dockerfile}) {
    for (std::string_view text : {"PYTORCH_CUDA_ALLOC_CONF=a',max_split_size_mb:$CUDA_VISIBLE_DEVICES'\n",
                                  "ENV PYTORCH_CUDA_ALLOC_CONF=a',max_split_size_mb:$CUDA_VISIBLE_DEVICES'\n"}) {
      SCOPED_TRACE(std::string(text) + " as " + std::to_string(static_cast<int>(kind)));
      std::vector<ShellEdit> edits;
      std::string once = translate_env_file(text, kind, edits);
      std::vector<ShellEdit> again;
      EXPECT_EQ(translate_env_file(once, kind, again), once);
      ParsedEnvFile before = parse_env_file(text, kind), after = parse_env_file(once, kind);
      if (before.assignments.size() != 1 || before.assignments[0].unresolved) continue;  // not this kind's syntax
      ASSERT_EQ(after.assignments.size(), 1u);
      EXPECT_EQ(after.assignments[0].name, "PYTORCH_NPU_ALLOC_CONF");
      EXPECT_EQ(after.assignments[0].value, kept);
      EXPECT_FALSE(after.assignments[0].unresolved);
    }
  }
}

// A kept value with a quote in it: each kind's own quoting must carry it.
TEST(EnvShellFuzzRegression, RewrittenValueWithAQuoteReadsBack) {
  for (EnvFileKind kind : {EnvFileKind::shell, EnvFileKind::dotenv}) {
    const std::string_view text = kind == EnvFileKind::shell
                                      ? "PYTORCH_CUDA_ALLOC_CONF=\"a,garbage_collection_threshold:0.6'x\"\n"
                                      : "PYTORCH_CUDA_ALLOC_CONF=a,garbage_collection_threshold:0.6'x\n";
    std::vector<ShellEdit> edits;
    std::string once = translate_env_file(text, kind, edits);
    ParsedEnvFile after = parse_env_file(once, kind);
    ASSERT_EQ(after.assignments.size(), 1u) << once;
    EXPECT_EQ(after.assignments[0].value, "garbage_collection_threshold:0.6'x") << once;
    std::vector<ShellEdit> again;
    EXPECT_EQ(translate_env_file(once, kind, again), once);
  }
}

// dockerfile-env-heredoc-between-value-words (minimised input): read as shell, the `<<O` between
// the two value words of `ENV PYTORCH_CUDA_ALLOC_CONF x<<O ] #\` opens a here-document that hides
// the next line; rewriting the value would delete the `<<O` and let a second translate rename
// $CUDA_VISIBLE_DEVICES there. An ENV instruction with shell operators is reported and left alone.
TEST(EnvShellFuzzRegression, DockerfileEnvWithShellOperatorsIsLeftAlone) {
  const std::string_view text = "eNV PYTORCH_CUDA_ALLOC_CONF \xe7<<O ] #\\\n$CUDA_VISIBLE_DEVICES";
  std::vector<ShellEdit> edits;
  std::vector<Finding> notes;
  const std::string once = translate_env_file(text, EnvFileKind::dockerfile, edits, &notes);
  EXPECT_EQ(once, text);
  EXPECT_TRUE(edits.empty());
  ASSERT_EQ(notes.size(), 3u);  // the instruction, then each CUDA name in it left alone
  EXPECT_EQ(notes[0].rule, "env-parse-error");
  std::set<std::pair<int, int>> left{{notes[1].line, notes[1].column}, {notes[2].line, notes[2].column}};
  EXPECT_EQ(left, (std::set<std::pair<int, int>>{{1, 5}, {2, 2}}));  // PYTORCH_CUDA_..., $CUDA_...
  for (std::string_view other : {std::string_view("ENV CUDA_VISIBLE_DEVICES=0; CUDA_LAUNCH_BLOCKING=1\n"),
                                 std::string_view("ENV CUDA_VISIBLE_DEVICES 0 >log 1\n")}) {
    EXPECT_EQ(translate_env_file(other, EnvFileKind::dockerfile, edits), other) << other;
    EXPECT_TRUE(edits.empty()) << other;
  }
}

// dockerfile-value-holds-continuation (minimised input): `RUN A=\\` continues the RUN instruction
// (its last byte is a backslash) while the shell reads `\\` as an escaped backslash ending the
// value; dropping the value's unknown option would remove the backslash and make the next line an
// instruction of its own. A value holding the continuation is left alone and reported.
TEST(EnvShellFuzzRegression, DockerfileValueHoldingTheContinuationIsLeftAlone) {
  std::vector<Finding> notes;
  const std::string once =
      translate_dockerfile_stably("RUN PYTORCH_CUDA_ALLOC_CONF=\\\\\nENV PYTORCH_CUDA_ALLOC_CONF=\n", &notes);
  EXPECT_NE(once.find("=\\\\\n"), std::string::npos) << once;  // the value and its backslash kept
  EXPECT_TRUE(reports_parse_error(notes));
}

// dockerfile-value-alone-on-continuation-line: `ENV PYTORCH_CUDA_ALLOC_CONF \` with its value alone
// on the next line. Dropping the value's unknown option would leave that line empty, Docker skips an
// empty line inside an instruction, so the line after it would join the ENV and a second translate
// would rename the variable it uses. Such a value is left alone and reported.
TEST(EnvShellFuzzRegression, DockerfileValueAloneOnAContinuationLineIsLeftAlone) {
  std::vector<Finding> notes;
  const std::string once =
      translate_dockerfile_stably("ENV PYTORCH_CUDA_ALLOC_CONF \\\n  bogus:1\nX=$CUDA_VISIBLE_DEVICES\n", &notes);
  EXPECT_NE(once.find("\n  bogus:1\n"), std::string::npos) << once;  // the value kept, its line not emptied
  EXPECT_TRUE(reports_parse_error(notes));
  // Lone carriage returns before the value are blanks too (dockerfile-value-after-carriage-returns).
  std::vector<Finding> cr_notes;
  const std::string cr_once = translate_dockerfile_stably(
      "ENV PYTORCH_CUDA_ALLOC_CONF \\\n\r\r  bogus:1\nX=$CUDA_VISIBLE_DEVICES\n", &cr_notes);
  EXPECT_NE(cr_once.find("\r\r  bogus:1\n"), std::string::npos) << cr_once;
  EXPECT_TRUE(reports_parse_error(cr_notes));
}

// dockerfile-comment-line-in-instruction (minimised input): `ENV A=\` with a comment line after it.
// Docker drops the comment line, so the instruction is `ENV A=4`. Lexing the comment with the ENV
// would read `A=#` and an assignment inside the comment. Dropped lines are not lexed.
TEST(EnvShellFuzzRegression, DockerfileCommentLineInsideAnInstructionIsNotRead) {
  const std::string_view text = "ENV A=\\\n# PYTORCH_CUDA_ALLOC_CONF=F`\n4\nPYTORCH_CUDA_ALLOC_CONF=";
  const ParsedEnvFile parsed = parse_env_file(text, EnvFileKind::dockerfile);
  ASSERT_EQ(parsed.assignments.size(), 1u);
  EXPECT_EQ(parsed.assignments[0].name, "A");
  EXPECT_EQ(parsed.assignments[0].value, "4");  // Docker's reading: the comment line removed
  std::vector<ShellEdit> edits;
  const std::string once = translate_env_file(text, EnvFileKind::dockerfile, edits);
  EXPECT_EQ(once, text);  // nothing to rename: the names are in a comment and outside any ENV
  // The same inside RUN: a reference in a comment line is neither read nor renamed, and the words on
  // either side of it join as Docker joins them.
  const std::string_view run = "RUN echo a\\\n  # $CUDA_VISIBLE_DEVICES\nb $CUDA_VISIBLE_DEVICES\n";
  const ParsedEnvFile run_parsed = parse_env_file(run, EnvFileKind::dockerfile);
  ASSERT_EQ(run_parsed.references.size(), 1u);
  EXPECT_EQ(run_parsed.references[0].begin, run.rfind("CUDA_VISIBLE_DEVICES"));
  EXPECT_EQ(run_parsed.references[0].end, run.size() - 1);
  const std::string run_once = translate_env_file(run, EnvFileKind::dockerfile, edits);
  EXPECT_EQ(run_once, "RUN echo a\\\n  # $CUDA_VISIBLE_DEVICES\nb $ASCEND_RT_VISIBLE_DEVICES\n");
}

// A line continuation inside a name: the shell removes `\<newline>` before it reads words, so
// `export PYTORCH_CUDA_\<newline>ALLOC_CONF=x` sets PYTORCH_CUDA_ALLOC_CONF. The name's range
// must cover the whole split name, or the rename leaves `...CONFNF=` behind (name-split-by-continuation).
TEST(EnvShellFuzzRegression, NameSplitByALineContinuationIsRenamedWhole) {
  const std::string_view text = "export PYTORCH_CUDA_\\\nALLOC_CONF=expandable_segments:True\n";
  const ParsedEnvFile parsed = parse_env_file(text, EnvFileKind::shell);
  ASSERT_EQ(parsed.assignments.size(), 1u);
  const Assignment& a = parsed.assignments[0];
  EXPECT_EQ(a.name, "PYTORCH_CUDA_ALLOC_CONF");
  EXPECT_EQ(text.substr(a.name_begin, a.name_end - a.name_begin), "PYTORCH_CUDA_\\\nALLOC_CONF");
  std::vector<ShellEdit> edits;
  EXPECT_EQ(translate_env_file(text, EnvFileKind::shell, edits),
            "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\n");
  // In a Dockerfile a comment line may sit inside the split (Docker drops it): renaming the name's
  // bytes would delete the comment, so the name is reported and left alone.
  const std::string_view docker = "ENV PYTORCH_CUDA_\\\n# the allocator\nALLOC_CONF=x\n";
  std::vector<Finding> notes;
  EXPECT_EQ(translate_dockerfile_stably(docker, &notes), docker);
  EXPECT_TRUE(reports_parse_error(notes));
  // `NAME+\<newline>=` appends: the name ends before the `+`.
  const ParsedEnvFile append = parse_env_file("A+\\\n=1\n", EnvFileKind::shell);
  ASSERT_EQ(append.assignments.size(), 1u);
  EXPECT_EQ(append.assignments[0].name_end, 1u);
}

// dockerfile-env-without-equals-emptied: `ENV NAME value` (Docker's form without '=') whose value
// loses its only allocator option. Written empty, `ENV PYTORCH_NPU_ALLOC_CONF` alone would be no
// assignment (Docker rejects it: "ENV must have two arguments"), so the emptied value is written as "".
TEST(EnvShellFuzzRegression, DockerfileEnvWithoutEqualsKeepsAnEmptiedValue) {
  const std::string_view text = "ENV PYTORCH_CUDA_ALLOC_CONF\r 127\nRUN true\n";
  std::vector<ShellEdit> edits;
  const std::string once = translate_env_file(text, EnvFileKind::dockerfile, edits);
  EXPECT_EQ(once, "ENV PYTORCH_NPU_ALLOC_CONF\r \"\"\nRUN true\n");
  const ParsedEnvFile parsed = parse_env_file(once, EnvFileKind::dockerfile);
  ASSERT_EQ(parsed.assignments.size(), 1u);
  EXPECT_EQ(parsed.assignments[0].name, "PYTORCH_NPU_ALLOC_CONF");
  EXPECT_EQ(parsed.assignments[0].value, "");
  // With '=' an empty value is an assignment as it stands.
  EXPECT_EQ(translate_env_file("ENV PYTORCH_CUDA_ALLOC_CONF=127\n", EnvFileKind::dockerfile, edits),
            "ENV PYTORCH_NPU_ALLOC_CONF=\n");
}

// dockerfile-rename-keeps-continuation (minimised input): `ENV NAME\` with the value on a later line
// (here after an empty line, which Docker drops). A name's range ends at its last character, so the
// rename keeps the continuation instead of leaving `ENV NAME` alone, no assignment; `export NAME\`
// in a shell keeps its continuation too.
TEST(EnvShellFuzzRegression, RenameKeepsTheContinuationAfterAName) {
  const std::string_view text = "eNV PYTORCH_CUDA_ALLOC_CONF\\\n\n d=";
  std::vector<ShellEdit> edits;
  const std::string once = translate_env_file(text, EnvFileKind::dockerfile, edits);
  EXPECT_EQ(once, "eNV PYTORCH_NPU_ALLOC_CONF\\\n\n d=");
  const ParsedEnvFile parsed = parse_env_file(once, EnvFileKind::dockerfile);
  ASSERT_EQ(parsed.assignments.size(), 1u);
  EXPECT_EQ(parsed.assignments[0].value, "d=");
  EXPECT_EQ(translate_env_file("export CUDA_VISIBLE_DEVICES\\\n  OTHER\n", EnvFileKind::shell, edits),
            "export ASCEND_RT_VISIBLE_DEVICES\\\n  OTHER\n");
}

// A .env value `"\""` followed by a stray `'`: its only (unknown) allocator option is dropped, and
// the value written as nothing would let the `'` after the old closing quote start an unterminated
// value, and the assignment would be gone (dotenv-emptied-value-before-tail, minimised). An emptied
// value followed by more text is written "".
TEST(EnvShellFuzzRegression, EmptiedValueFollowedByMoreTextIsQuoted) {
  const std::string_view text = "PYTORCH_CUDA_ALLOC_CONF=\"\\\"\"'";
  std::vector<ShellEdit> edits;
  const std::string once = translate_env_file(text, EnvFileKind::dotenv, edits);
  EXPECT_EQ(once, "PYTORCH_NPU_ALLOC_CONF=\"\"'");
  const ParsedEnvFile parsed = parse_env_file(once, EnvFileKind::dotenv);
  ASSERT_EQ(parsed.assignments.size(), 1u);
  EXPECT_EQ(parsed.assignments[0].value, "");
}

}  // namespace
}  // namespace banjia::env
