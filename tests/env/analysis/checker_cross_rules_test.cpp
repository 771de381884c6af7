// Rules across variables are data: every rule in data/env/cross_rules.toml is complete and names a
// condition kind the binary knows, and every kind is named by a rule; a rule written only in TOML fires
// with no change to C++; malformed rules are reported by the loader.
#include <filesystem>

#include <gtest/gtest.h>

#include "common/file_io.h"
#include "env/analysis/checker.h"
#include "env/model/cross_rule.h"

namespace banjia::env {
namespace {

namespace fs = std::filesystem;

size_t occurrences(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(EnvCrossRules, EveryRuleIsCompleteAndNamesAKnownKind) {
  const auto& kb = knowledge_base();
  std::string text = read_file(fs::path(BANJIA_SOURCE_DIR) / "data" / "env" / "cross_rules.toml");
  ASSERT_EQ(kb.cross_rules.size(), occurrences(text, "\n[[cross_rule]]\n"));
  ASSERT_GE(kb.cross_rules.size(), 11u);
  for (const auto& r : kb.cross_rules) {
    SCOPED_TRACE(r.id);
    EXPECT_TRUE(r.id.starts_with("env-"));
    EXPECT_FALSE(r.summary.empty());
    EXPECT_FALSE(r.source.empty());
    EXPECT_NE(occurrences(text, "id = \"" + r.id + "\"\nseverity = \"" + std::string(to_string(r.severity)) + "\""), 0u);
    const CrossKind* kind = cross_rule_kind(r.kind);
    ASSERT_NE(kind, nullptr) << r.kind;
    ASSERT_FALSE(kind->templates.empty());
    for (const auto& name : kind->templates) {
      ASSERT_TRUE(r.templates.count(name)) << name;
      EXPECT_FALSE(r.templates.at(name).empty()) << name;
    }
    EXPECT_EQ(kb.rule(r.id).summary, r.summary);  // listed with the other rules (SARIF)
  }
}

TEST(EnvCrossRules, EveryKindIsNamedByARule) {
  EXPECT_EQ(kinds_without_rules(knowledge_base().cross_rules), std::vector<std::string>{});
  for (const auto& k : cross_rule_kinds()) {
    EXPECT_NE(k.check, nullptr) << k.name;
    EXPECT_FALSE(k.description.empty()) << k.name;
  }
}

TEST(EnvCrossRules, AKindWithoutARuleIsReported) {
  std::vector<CrossRule> rules = knowledge_base().cross_rules;
  std::erase_if(rules, [](const CrossRule& r) { return r.kind == "timeout-order"; });
  EXPECT_EQ(kinds_without_rules(rules), std::vector<std::string>{"timeout-order"});
}

TEST(EnvCrossRules, EveryRuleHasAnExample) {
  for (const auto& r : knowledge_base().cross_rules) {
    EXPECT_FALSE(r.example_script.empty()) << r.id;
    EXPECT_GT(r.example_line, 0) << r.id;
  }
}

TEST(EnvCrossRules, TemplatesFillNamedPlaceholders) {
  EXPECT_EQ(fill_template("{var}={value} (line {line})", {{"var", "A"}, {"value", "1"}, {"line", "3"}}), "A=1 (line 3)");
  EXPECT_EQ(fill_template("{{var}} {nope}", {{"var", "A"}}), "{var} {nope}");
  EXPECT_EQ(template_placeholders("{a} {{b}} {c}"), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(template_placeholders("{a"), std::nullopt);
  EXPECT_EQ(template_placeholders("a}"), std::nullopt);
}

Environment environment(std::initializer_list<std::pair<std::string, std::string>> settings) {
  Environment env;
  int line = 0;
  for (const auto& [name, value] : settings) env[name] = Setting{value, false, Site{"t.sh", ++line, 8}};
  return env;
}

constexpr const char* kTestOnlyRules = R"toml(
[[var]]
name = "TEST_LONG_TIMEOUT"
component = "HCCL"
type = "int"
default = "600"
effect = "a test variable"
class = "production"
source = "this test"

[[cross_rule]]
id = "env-test-only-pair"
severity = "info"
kind = "assignment"
at = [{ var = "HCCL_BUFFSIZE", test = "equals", values = ["200"] }]
requires_any = [{ var = "HCCL_OP_EXPANSION_MODE", test = "equals", values = ["AIV"] }]
unless = [{ var = "TEST_ESCAPE", test = "set" }]
evidence = "{var}={value} (line {line}) beside {other}={other_value} (line {other_line})"
suggestion = "check {var}"
summary = "a rule that exists only in this test"
source = "this test"

[[cross_rule]]
id = "env-test-only-timeout"
severity = "error"
kind = "timeout-order"
longer = "TEST_LONG_TIMEOUT"
shorter = "TEST_SHORT_TIMEOUT"
evidence = "{longer}={longer_value} <= {shorter}={shorter_value}"
evidence_default = "{longer} default {longer_value} <= {shorter}={shorter_value}"
suggestion = "raise {longer}"
summary = "test timeouts"
source = "this test"
)toml";

TEST(EnvCrossRules, ARuleWrittenOnlyInTomlFires) {
  auto kb = load_knowledge_base({{"test.toml", kTestOnlyRules}});
  for (const auto& p : kb.problems) ADD_FAILURE() << p;
  std::vector<Finding> out;
  check_cross_rules(kb, environment({{"HCCL_OP_EXPANSION_MODE", "AIV"}, {"HCCL_BUFFSIZE", "200"}}), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "env-test-only-pair");
  EXPECT_EQ(out[0].severity, Severity::info);
  EXPECT_EQ(out[0].line, 2);
  EXPECT_EQ(out[0].message, "a rule that exists only in this test");
  EXPECT_EQ(out[0].evidence, "HCCL_BUFFSIZE=200 (line 2) beside HCCL_OP_EXPANSION_MODE=AIV (line 1)");
  EXPECT_EQ(out[0].suggestion, "check HCCL_BUFFSIZE");
  EXPECT_EQ(out[0].source, "this test");

  out.clear();
  check_cross_rules(kb, environment({{"HCCL_BUFFSIZE", "200"}}), out);  // requires_any does not hold
  check_cross_rules(kb, environment({{"HCCL_OP_EXPANSION_MODE", "AIV"}, {"HCCL_BUFFSIZE", "200"}, {"TEST_ESCAPE", "x"}}),
                    out);  // unless holds
  EXPECT_TRUE(out.empty());

  check_cross_rules(kb, environment({{"TEST_SHORT_TIMEOUT", "900"}}), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "env-test-only-timeout");
  EXPECT_EQ(out[0].severity, Severity::error);
  EXPECT_EQ(out[0].evidence, "TEST_LONG_TIMEOUT default 600 <= TEST_SHORT_TIMEOUT=900");
  out.clear();
  check_cross_rules(kb, environment({{"TEST_SHORT_TIMEOUT", "500"}}), out);
  EXPECT_TRUE(out.empty());
}

TEST(EnvCrossRules, MalformedRulesAreProblems) {
  auto kb = load_knowledge_base({{"bad.toml", R"toml(
[[cross_rule]]
id = "env-test-bad-kind"
severity = "warning"
kind = "no-such-kind"
summary = "s"
source = "s"

[[cross_rule]]
id = "env-test-bad-parts"
severity = "loud"
kind = "assignment"
at = [{ var = "A", test = "no-such-test" }, { var = "B", test = "equals" }]
evidence = "{var} {not_filled}"
suggestion = "{var"
source = "s"
)toml"}});
  auto has = [&](std::string_view what) {
    for (const auto& p : kb.problems)
      if (p.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("'env-test-bad-kind': unknown kind 'no-such-kind'"));
  EXPECT_TRUE(has("'env-test-bad-parts': unknown severity 'loud'"));
  EXPECT_TRUE(has("unknown test 'no-such-test'"));
  EXPECT_TRUE(has("test 'equals' needs values"));
  EXPECT_TRUE(has("uses {not_filled}, which kind 'assignment' does not fill"));
  EXPECT_TRUE(has("template 'suggestion' has an unbalanced brace"));
  EXPECT_TRUE(has("'env-test-bad-parts': missing 'summary'"));
  EXPECT_EQ(kb.problems.size(), 7u);
}

}  // namespace
}  // namespace banjia::env
