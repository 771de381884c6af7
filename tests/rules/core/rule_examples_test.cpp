// What the catalogue's examples and targets must provide: every Python rule has examples, an
// automatic rule a before/after pair and an accelerator form. rule_cases_test.cpp runs the examples,
// one test case per rule.
#include <gtest/gtest.h>

#include "rules/core/catalog.h"

using banjia::rules::RuleCatalog;

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
    if (const auto* call = std::get_if<banjia::rules::CallRewrite>(&r.rewrite_params)) {
      for (const auto& [from, to] : call->renames) EXPECT_EQ(to.find("{device_type}"), std::string::npos) << r.id << " " << from;
    }
    // A device-from-index value keeps its {index}: the index written where the rule matches.
    const auto* device = std::get_if<banjia::rules::DeviceRewrite>(&r.rewrite_params);
    std::string value = device ? device->value : std::string();
    if (size_t at = value.find("{index}"); at != std::string::npos) value.erase(at, 7);
    EXPECT_EQ(value.find('{'), std::string::npos) << r.id;
    EXPECT_EQ(r.index_spelling.find("{device_type}"), std::string::npos) << r.id;
  }
  EXPECT_EQ(RuleCatalog::for_target("tpu"), nullptr);
}

TEST_P(RuleExamples, EveryPythonRuleHasAnExample) {
  for (const auto& r : target_rules(GetParam()).rules()) {
    if (!r.match.python()) continue;
    EXPECT_FALSE(r.examples.empty()) << r.id << " has no example in " << r.data_file;
    if (r.fix == banjia::FixKind::automatic) {
      bool has_after = false;
      for (const auto& e : r.examples) has_after = has_after || e.after.has_value();
      EXPECT_TRUE(has_after) << r.id << ": an automatic rule needs a before/after example";
    }
  }
}
