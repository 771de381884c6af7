// The rule catalogue is data: every entry must be complete and carry a source.
#include <gtest/gtest.h>

#include <set>

#include "common/errors.h"
#include "rules/core/catalog.h"
#include "rules/kinds/qualified.h"

using banjia::rules::RuleCatalog;
using banjia::rules::RuleExample;

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

// An example's file names how scan reads it; a name scan skips would leave the example untested.
TEST(RuleCatalog, ExampleFileMustBeOneScanReads) {
  const std::string rule = R"([[rule]]
id = "x"
category = "dependency"
severity = "warning"
fix = "manual"
message = "m"
source = "s"
match = { kind = "requirement", packages = ["cupy"] }
[[rule.example]]
before = "cupy\n"
)";
  RuleCatalog c;
  c.add_toml(rule + "file = \"requirements-dev.txt\"\n", "t.toml");
  EXPECT_EQ(c.find("x")->examples.at(0).file, "requirements-dev.txt");
  EXPECT_THROW(RuleCatalog().add_toml(rule + "file = \"deps.cfg\"\n", "t.toml"), banjia::InputError);
  EXPECT_THROW(RuleCatalog().add_toml(rule + "file = \"sub/requirements.txt\"\n", "t.toml"), banjia::InputError);
  EXPECT_EQ(RuleExample{}.file, "example.py");
}

// A rule's rewrite params are those of its rewrite kind; a target form without a [rewrite] has none,
// whatever the rule as written rewrites.
TEST(RuleCatalog, RewriteParamsAreTheKindsAndATargetFormStartsWithoutThem) {
  RuleCatalog c;
  c.add_toml(R"toml([[rule]]
id = "x"
category = "device"
severity = "warning"
fix = "automatic"
message = "m"
source = "s"
match = { kind = "device-string" }
rewrite = { kind = "device-expression", value = "dev()", indexed = "dev({index})" }
[rule.target.accelerator]
source = "s"
fix = "manual"
)toml", "t.toml");
  const auto& r = *c.find("x");
  const auto& d = r.rewrite_as<banjia::rules::DeviceRewrite>();
  EXPECT_EQ(d.value, "dev()");
  EXPECT_EQ(d.compare, "dev()");  // `compare` defaults to `value`
  EXPECT_EQ(d.indexed, "dev({index})");
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].second->rewrite, banjia::rules::RewriteKind::none);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.targets[0].second->rewrite_params));
}

TEST(RuleCatalog, LongestQualifiedMatchWins) {
  const auto& cat = RuleCatalog::builtin();
  ASSERT_NE(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.synchronize"), nullptr);
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.synchronize")->id, "torch-cuda-api");
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.comm.scatter")->id, "torch-cuda-unsupported");
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.nvtx.range_push")->id, "cuda-nvtx");
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.get_arch_list")->id, "torch-cuda-unverified");
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.amp.GradScaler")->id, "cuda-amp");
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.npu.synchronize"), nullptr);
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cudax"), nullptr);
}

TEST(RuleCatalog, ImportMatchesSubmodules) {
  const auto& cat = RuleCatalog::builtin();
  ASSERT_NE(cat.index_of<banjia::rules::QualifiedMatch>().match_import("vllm.distributed"), nullptr);
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_import("vllm.distributed")->id, "vllm");
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_import("vllmx"), nullptr);
}

namespace {
// A manual rule whose replacement only newer TorchNPU releases have; `extra` adds or overrides fields.
std::string versioned_rule(const std::string& extra) {
  return R"([[rule]]
id = "x"
category = "device"
severity = "warning"
message = "m"
source = "s"
match = { kind = "qualified", names = ["torch.cuda.ExternalStream"] }
)" + extra;
}
}  // namespace

TEST(RuleCatalog, MinTorchNpuIsSaidInTheReplacement) {
  RuleCatalog c;
  c.add_toml(versioned_rule("fix = \"manual\"\nreplacement = \"torch.npu.ExternalStream\"\nmin_torch_npu = \"26.2.0\"\n"),
             "t.toml");
  ASSERT_EQ(c.rules().size(), 1u);
  EXPECT_EQ(c.rules()[0].min_torch_npu, "26.2.0");
  EXPECT_EQ(c.rules()[0].replacement, "torch.npu.ExternalStream (torch_npu 26.2.0 or newer)");
}

TEST(RuleCatalog, MinTorchNpuMustBeAReleaseOnAManualRuleWithAReplacement) {
  const std::string rep = "replacement = \"torch.npu.ExternalStream\"\n";
  EXPECT_THROW(RuleCatalog().add_toml(versioned_rule("fix = \"manual\"\n" + rep + "min_torch_npu = \"newest\"\n"), "t.toml"),
               banjia::InputError);
  EXPECT_THROW(RuleCatalog().add_toml(versioned_rule("fix = \"manual\"\nmin_torch_npu = \"26.2.0\"\n"), "t.toml"),
               banjia::InputError);
  EXPECT_THROW(RuleCatalog().add_toml(versioned_rule("fix = \"automatic\"\n" + rep + "min_torch_npu = \"26.2.0\"\n" +
                                                     "rewrite = { kind = \"replace-module\", from = \"torch.cuda\", "
                                                     "to = \"torch.npu\" }\n"),
                                      "t.toml"),
               banjia::InputError);
}

TEST(RuleCatalog, NamesOnlyNewerReleasesHaveAreNotRewritten) {
  // torch.npu.ExternalStream exists from torch_npu 26.2.0 on and torch.npu.list_gpu_processes in no
  // release (data/api): neither is rewritten automatically.
  const auto& cat = RuleCatalog::builtin();
  const auto* external = cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.ExternalStream");
  ASSERT_NE(external, nullptr);
  EXPECT_EQ(external->id, "cuda-external-stream");
  EXPECT_EQ(external->fix, banjia::FixKind::manual);
  EXPECT_EQ(external->replacement, "torch.npu.ExternalStream (torch_npu 26.2.0 or newer)");
  ASSERT_NE(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.list_gpu_processes"), nullptr);
  EXPECT_EQ(cat.index_of<banjia::rules::QualifiedMatch>().match_qualified("torch.cuda.list_gpu_processes")->id, "torch-cuda-unverified");
}
