// The rule catalogue is data: every entry must be complete and carry a source.
#include <gtest/gtest.h>

#include <set>

#include "common/errors.h"
#include "scan/rule_catalog.h"

using banjia::scan::MatchKind;
using banjia::scan::RuleCatalog;

TEST(RuleCatalog, BuiltinLoadsAndEveryRuleHasASource) {
  const auto& cat = RuleCatalog::builtin();
  ASSERT_GT(cat.rules().size(), 30u);
  for (const auto& r : cat.rules()) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    EXPECT_FALSE(r.message.empty()) << r.id;
    // ids are kebab-case
    for (char c : r.id) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') << r.id;
  }
}

TEST(RuleCatalog, RuleWithoutSourceIsRejected) {
  RuleCatalog c;
  EXPECT_THROW(c.add_toml(R"([[rule]]
id = "x"
category = "device"
severity = "warning"
fix = "manual"
message = "m"
match = { kind = "attribute", name = "cuda" }
)", "t.toml"), banjia::InputError);
}

TEST(RuleCatalog, EmptySourceIsRejected) {
  RuleCatalog c;
  EXPECT_THROW(c.add_toml(R"([[rule]]
id = "x"
category = "device"
severity = "warning"
fix = "manual"
message = "m"
source = ""
match = { kind = "attribute", name = "cuda" }
)", "t.toml"), banjia::InputError);
}

TEST(RuleCatalog, AutomaticRuleNeedsRewrite) {
  RuleCatalog c;
  EXPECT_THROW(c.add_toml(R"([[rule]]
id = "x"
category = "device"
severity = "warning"
fix = "automatic"
message = "m"
source = "s"
match = { kind = "attribute", name = "cuda" }
)", "t.toml"), banjia::InputError);
}

TEST(RuleCatalog, LongestQualifiedMatchWins) {
  const auto& cat = RuleCatalog::builtin();
  ASSERT_NE(cat.match_qualified("torch.cuda.synchronize"), nullptr);
  EXPECT_EQ(cat.match_qualified("torch.cuda.synchronize")->id, "torch-cuda-api");
  EXPECT_EQ(cat.match_qualified("torch.cuda.comm.scatter")->id, "torch-cuda-unsupported");
  EXPECT_EQ(cat.match_qualified("torch.cuda.nvtx.range_push")->id, "cuda-nvtx");
  EXPECT_EQ(cat.match_qualified("torch.cuda.get_arch_list")->id, "torch-cuda-unverified");
  EXPECT_EQ(cat.match_qualified("torch.cuda.amp.GradScaler")->id, "cuda-amp");
  EXPECT_EQ(cat.match_qualified("torch.npu.synchronize"), nullptr);
  EXPECT_EQ(cat.match_qualified("torch.cudax"), nullptr);
}

TEST(RuleCatalog, ImportMatchesSubmodules) {
  const auto& cat = RuleCatalog::builtin();
  ASSERT_NE(cat.match_import("xformers.ops"), nullptr);
  EXPECT_EQ(cat.match_import("xformers.ops")->id, "xformers");
  EXPECT_EQ(cat.match_import("xformersx"), nullptr);
}
