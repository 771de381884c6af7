// Finding environment assignments in shell scripts, .env files and Dockerfiles, with exact byte ranges.
#include <gtest/gtest.h>

#include "env/readers/env_file.h"

namespace banjia::env {
namespace {

ParsedEnvFile shell(std::string_view text) { return parse_env_file(text, EnvFileKind::shell); }

// The NAME and VALUE byte ranges must cover exactly the text they claim to.
void expect_ranges(std::string_view text, const Assignment& a) {
  EXPECT_EQ(text.substr(a.name_begin, a.name_end - a.name_begin), a.name);
  if (a.has_value && !a.unresolved) {
    std::string_view raw = text.substr(a.value_begin, a.value_end - a.value_begin);
    EXPECT_NE(raw.find(a.value.substr(0, 1)), std::string_view::npos) << raw;
  }
}

// Names and values of a Dockerfile's assignments, in order, each checked with expect_ranges.
struct NamesValues {
  ParsedEnvFile parsed;
  std::vector<std::string> names, values;
};
NamesValues dockerfile_assignments(std::string_view text) {
  NamesValues out{parse_env_file(text, EnvFileKind::dockerfile), {}, {}};
  for (const auto& a : out.parsed.assignments) {
    out.names.push_back(a.name);
    out.values.push_back(a.value);
    expect_ranges(text, a);
  }
  return out;
}

TEST(EnvShellParse, ExportPrefixDeclareAndPlainForms) {
  std::string_view text =
      "export A=1\n"
      "B=2 python train.py --lr 0.1\n"
      "declare -x C=3\n"
      "D=4\n"
      "export D\n"
      "env E=5 F=6 python x.py\n"
      "unset A\n";
  auto p = shell(text);
  ASSERT_TRUE(p.problems.empty());
  ASSERT_EQ(p.assignments.size(), 8u);
  const AssignKind kinds[] = {AssignKind::exported, AssignKind::prefix, AssignKind::exported, AssignKind::plain,
                              AssignKind::export_only, AssignKind::prefix, AssignKind::prefix, AssignKind::unset};
  const char* names[] = {"A", "B", "C", "D", "D", "E", "F", "A"};
  const int lines[] = {1, 2, 3, 4, 5, 6, 6, 7};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(p.assignments[i].name, names[i]) << i;
    EXPECT_EQ(p.assignments[i].kind, kinds[i]) << i;
    EXPECT_EQ(p.assignments[i].line, lines[i]) << i;
    expect_ranges(text, p.assignments[i]);
  }
  EXPECT_EQ(p.assignments[2].value, "3");
  EXPECT_EQ(p.assignments[2].column, 12);  // "declare -x " is 11 characters
}

TEST(EnvShellParse, QuotesEscapesAndComments) {
  std::string_view text =
      "export A='x y' B=\"p \\\"q\\\" r\" C=a\\ b  # trailing comment A=9\n"
      "# export D=1\n"
      "export E=\"x#y\" F=x#y\n";
  auto p = shell(text);
  ASSERT_EQ(p.assignments.size(), 5u);
  EXPECT_EQ(p.assignments[0].value, "x y");
  EXPECT_EQ(p.assignments[1].value, "p \"q\" r");
  EXPECT_EQ(p.assignments[2].value, "a b");
  EXPECT_EQ(p.assignments[3].value, "x#y");
  EXPECT_EQ(p.assignments[4].value, "x#y");
  EXPECT_EQ(text.substr(p.assignments[0].value_begin, p.assignments[0].value_end - p.assignments[0].value_begin),
            "'x y'");
  for (const auto& a : p.assignments) EXPECT_FALSE(a.unresolved);
}

TEST(EnvShellParse, ContinuationLinesKeepRealLineNumbers) {
  std::string_view text = "export A=1 \\\n  B=2 \\\n  C=3\nexport D=4\n";
  auto p = shell(text);
  ASSERT_EQ(p.assignments.size(), 4u);
  EXPECT_EQ(p.assignments[1].line, 2);
  EXPECT_EQ(p.assignments[1].column, 3);
  EXPECT_EQ(p.assignments[2].line, 3);
  EXPECT_EQ(p.assignments[3].line, 4);
}

TEST(EnvShellParse, ExpansionsStayUnresolvedText) {
  std::string_view text = "export A=${TASK:-2} B=\"$HOME/x\" C=$(hostname -I | awk '{print $1}') D=`date`\n";
  auto p = shell(text);
  ASSERT_EQ(p.assignments.size(), 4u);
  EXPECT_EQ(p.assignments[0].value, "${TASK:-2}");
  EXPECT_EQ(p.assignments[1].value, "$HOME/x");
  EXPECT_EQ(p.assignments[2].value, "$(hostname -I | awk '{print $1}')");
  for (const auto& a : p.assignments) EXPECT_TRUE(a.unresolved);
  std::vector<std::string> refs;
  for (const auto& r : p.references) refs.push_back(r.name);
  EXPECT_EQ(refs, (std::vector<std::string>{"TASK", "HOME"}));
}

TEST(EnvShellParse, HereDocumentBodiesAreNotCommands) {
  auto p = shell("cat > f.sh <<'EOF'\nexport INSIDE=1\nEOF\nexport AFTER=2\ncat <<-X\n\texport IN2=1\n\tX\n");
  ASSERT_EQ(p.assignments.size(), 1u);
  EXPECT_EQ(p.assignments[0].name, "AFTER");
  EXPECT_EQ(p.assignments[0].line, 4);
  EXPECT_TRUE(p.problems.empty());
}

TEST(EnvShellParse, ControlStructuresAndRedirections) {
  auto p = shell("if [ -n \"$X\" ]; then export A=1; fi\nfor i in 1 2; do B=$i cmd 2>&1 > log; done\n"
                 "export C=3 >/dev/null\n");
  std::vector<std::string> names;
  for (const auto& a : p.assignments) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C"}));
}

TEST(EnvShellParse, UnparseableConstructsAreReportedWithTheirLine) {
  auto p = shell("export A=1\nexport B='never closed\nexport C=3\n");
  ASSERT_EQ(p.problems.size(), 1u);
  EXPECT_EQ(p.problems[0].line, 2);
  EXPECT_NE(p.problems[0].message.find("unterminated single quote"), std::string::npos);
  auto q = shell("export X=\"$(echo hi\"\n");
  ASSERT_EQ(q.problems.size(), 1u);
  auto r = shell("export $NAME=1 \"Q\"=2\n");
  EXPECT_EQ(r.problems.size(), 2u);
  auto h = shell("cat <<EOF\nno end\n");
  ASSERT_EQ(h.problems.size(), 1u);
  EXPECT_NE(h.problems[0].message.find("not terminated"), std::string::npos);
}

TEST(EnvShellParse, DotenvValuesAreNotWordSplit) {
  std::string_view text = "# comment\nA=1\nexport B=two words # note\nC=\"quoted # not comment\"\nbad line\nD='x'\n";
  auto p = parse_env_file(text, EnvFileKind::dotenv);
  ASSERT_EQ(p.assignments.size(), 4u);
  EXPECT_EQ(p.assignments[1].value, "two words");
  EXPECT_EQ(p.assignments[2].value, "quoted # not comment");
  EXPECT_EQ(p.assignments[3].value, "x");
  for (const auto& a : p.assignments) {
    EXPECT_EQ(a.kind, AssignKind::exported);
    expect_ranges(text, a);
  }
  ASSERT_EQ(p.problems.size(), 1u);
  EXPECT_EQ(p.problems[0].line, 5);
}

TEST(EnvShellParse, DockerfileEnvFormsAndRunBodies) {
  std::string_view text =
      "FROM ubuntu:22.04\n"
      "ENV A=1 B=\"two words\" \\\n"
      "    C=3\n"
      "# ENV HIDDEN=1\n"
      "env LEGACY value with spaces\n"
      "RUN export D=4 && E=5 python x.py\n"
      "RUN [\"python\", \"F=6\"]\n"
      "ENV\n";
  const auto [p, names, values] = dockerfile_assignments(text);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C", "LEGACY", "D", "E"}));
  EXPECT_EQ(values[1], "two words");
  EXPECT_EQ(values[3], "value with spaces");
  EXPECT_EQ(p.assignments[2].line, 3);
  EXPECT_EQ(p.assignments[3].line, 5);
  EXPECT_FALSE(p.assignments[0].scoped);  // ENV persists in the image
  EXPECT_TRUE(p.assignments[4].scoped);   // each RUN is its own shell
  EXPECT_TRUE(p.assignments[5].scoped);
  ASSERT_EQ(p.problems.size(), 1u);  // the empty ENV
  EXPECT_EQ(p.problems[0].line, 8);
}

// Docker drops empty and comment lines inside a continued instruction (Dockerfile reference: comment
// lines are removed before instructions run; build check NoEmptyContinuation): they do not end it.
TEST(EnvShellParse, DockerfileCommentAndEmptyLinesInsideAContinuation) {
  std::string_view text =
      "ENV A=1 \\\n"
      "# a note \\\n"       // a comment line, even one ending in a backslash, is dropped whole
      "    B=2 \\\n"
      "\n"                   // an empty continuation line (deprecated, still read so)
      "    C=3\n"
      "ENV legacy a \\\n"
      "  # note\n"
      "  b\n"
      "RUN D=4 \\\n"
      "# note\n"
      "    python x.py\n"
      "ENV E=5\n";
  const auto [p, names, values] = dockerfile_assignments(text);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C", "legacy", "D", "E"}));
  EXPECT_EQ(values[2], "3");
  EXPECT_EQ(values[3], "a b");
  EXPECT_EQ(p.assignments[1].line, 3);
  EXPECT_EQ(p.assignments[2].line, 5);
  EXPECT_EQ(p.assignments[5].line, 12);
  EXPECT_TRUE(p.assignments[4].scoped);
  EXPECT_FALSE(p.assignments[5].scoped);
}

// Dockerfile reference: a `#` anywhere but at a line's start is an argument. Docker reads ENV as
// words, not shell, so `#` there is no comment: the legacy form's value runs to the line's end, and
// in the NAME=VALUE form `#` and what follows are arguments without '=' (Docker refuses them). A RUN
// body is shell, where `#` does start a comment.
TEST(EnvShellParse, DockerfileHashInsideAnEnvLineIsAnArgument) {
  std::string_view text =
      "ENV LEGACY value # with a hash\n"
      "ENV A=1 # note\n"
      "RUN B=2 python x.py # C=3\n";
  const auto [p, names, values] = dockerfile_assignments(text);
  EXPECT_EQ(names, (std::vector<std::string>{"LEGACY", "A", "B"}));
  EXPECT_EQ(values[0], "value # with a hash");
  ASSERT_EQ(p.problems.size(), 2u);
  EXPECT_EQ(p.problems[0].line, 2);
  EXPECT_NE(p.problems[0].message.find("'#' is not NAME=VALUE"), std::string::npos);
  EXPECT_NE(p.problems[1].message.find("'note' is not NAME=VALUE"), std::string::npos);
}

TEST(EnvShellParse, FileKindByName) {
  EXPECT_EQ(detect_env_file_kind("x/Dockerfile"), EnvFileKind::dockerfile);
  EXPECT_EQ(detect_env_file_kind("Dockerfile.npu"), EnvFileKind::dockerfile);
  EXPECT_EQ(detect_env_file_kind("app.dockerfile"), EnvFileKind::dockerfile);
  EXPECT_EQ(detect_env_file_kind(".env"), EnvFileKind::dotenv);
  EXPECT_EQ(detect_env_file_kind("prod.env"), EnvFileKind::dotenv);
  EXPECT_EQ(detect_env_file_kind("run.sh"), EnvFileKind::shell);
}

TEST(EnvShellParse, DirectivesAndUtf8Columns) {
  auto p = shell("# banjia-env: purpose=debug\necho \"中文\"; export A=1\n");
  ASSERT_EQ(p.directives.size(), 1u);
  EXPECT_EQ(p.directives[0], "purpose=debug");
  ASSERT_EQ(p.assignments.size(), 1u);
  EXPECT_EQ(p.assignments[0].column, 19);  // echo "中文"; export  = 18 code points before A
}

}  // namespace
}  // namespace banjia::env
