// Every rule's before/after fixtures (data/rules/*.toml) are executed: `scan` must report the rule
// on `before` (or must not, for `none` examples) and `migrate` must turn `before` into `after`.
// Automatic rules must have at least one before/after pair.
#include <gtest/gtest.h>

#include "migrate/python_rewriter.h"
#include "rules/python_scanner.h"
#include "rules/catalog.h"

using banjia::rules::RuleCatalog;

namespace {

bool has_rule(const std::vector<banjia::Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.rule == id) return true;
  return false;
}

std::string dump(const std::vector<banjia::Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += "  " + f.rule + " @" + std::to_string(f.line) + ":" + std::to_string(f.column) + "\n";
  return s;
}

bool python_rule(const banjia::rules::Rule& r) {
  // A kind matched in Python files declares its needles (rules/kinds/kind.h).
  return banjia::rules::match_kinds()[r.match.index()].add_needles != nullptr;
}

}  // namespace

// The catalogues migrate uses: the rules as written (target npu) and each rule's accelerator form.
const RuleCatalog& target_rules(std::string_view target) { return *RuleCatalog::for_target(target); }

class RuleExamples : public ::testing::TestWithParam<std::string_view> {};

INSTANTIATE_TEST_SUITE_P(Targets, RuleExamples,
                         ::testing::Values(banjia::rules::kTargetNpu, banjia::rules::kTargetAccelerator),
                         [](const auto& info) { return std::string(info.param); });

TEST(RuleTargets, EveryAutomaticRuleSaysWhatTheAcceleratorTargetDoes) {
  for (const auto& r : RuleCatalog::builtin().rules()) {
    if (r.fix != banjia::FixKind::automatic) continue;
    bool has = false;
    for (const auto& [name, form] : r.targets) has = has || name == banjia::rules::kTargetAccelerator;
    EXPECT_TRUE(has) << r.id << " (" << r.data_file << ") rewrites code for torch_npu but has no [rule.target.accelerator]";
  }
}

TEST(RuleTargets, AcceleratorFormsReplaceTheirPlaceholders) {
  for (const auto& r : target_rules(banjia::rules::kTargetAccelerator).rules()) {
    for (const auto& [from, to] : r.renames) EXPECT_EQ(to.find("{device_type}"), std::string::npos) << r.id << " " << from;
    // A device-from-index value keeps its {index}: the index written where the rule matches.
    std::string value = r.value_expression;
    if (size_t at = value.find("{index}"); at != std::string::npos) value.erase(at, 7);
    EXPECT_EQ(value.find('{'), std::string::npos) << r.id;
    EXPECT_EQ(r.index_spelling.find("{device_type}"), std::string::npos) << r.id;
  }
  EXPECT_EQ(RuleCatalog::for_target("tpu"), nullptr);
}

TEST_P(RuleExamples, EveryPythonRuleHasAnExample) {
  for (const auto& r : target_rules(GetParam()).rules()) {
    if (!python_rule(r)) continue;
    EXPECT_FALSE(r.examples.empty()) << r.id << " has no example in " << r.data_file;
    if (r.fix == banjia::FixKind::automatic) {
      bool has_after = false;
      for (const auto& e : r.examples) has_after = has_after || e.after.has_value();
      EXPECT_TRUE(has_after) << r.id << ": an automatic rule needs a before/after example";
    }
  }
}

TEST_P(RuleExamples, ScanFindsEachExample) {
  const auto& rules = target_rules(GetParam());
  for (const auto& r : rules.rules()) {
    for (const auto& e : r.examples) {
      std::vector<banjia::Finding> out;
      banjia::rules::scan_python(e.before, "example.py", rules, out);
      if (e.none) EXPECT_FALSE(has_rule(out, r.id)) << r.id << " must not fire on:\n" << e.before << dump(out);
      else EXPECT_TRUE(has_rule(out, r.id)) << r.id << " must fire on:\n" << e.before << "got:\n" << dump(out);
    }
  }
}

TEST_P(RuleExamples, MigrateRewritesBeforeIntoAfter) {
  const auto& rules = target_rules(GetParam());
  banjia::migrate::RewriteOptions opt;
  opt.target = std::string(GetParam());
  opt.insert_import = false;  // the import insertion has its own tests
  for (const auto& r : rules.rules()) {
    for (const auto& e : r.examples) {
      auto fr = banjia::migrate::rewrite_python(e.before, "example.py", rules, opt);
      std::string expected = e.after.value_or(e.before);
      EXPECT_EQ(fr.rewritten, expected) << r.id << " on:\n" << e.before;
      // Idempotent: the output migrates to itself.
      EXPECT_EQ(banjia::migrate::rewrite_python(fr.rewritten, "example.py", rules, opt).rewritten, fr.rewritten)
          << r.id << " again on:\n" << fr.rewritten;
    }
  }
}
