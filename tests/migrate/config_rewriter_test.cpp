// migrate on configuration files (migrate/config_rewriter.h): a device or backend value under a key
// that says what it is becomes its Ascend spelling where it stands, every other byte stays; the other
// CUDA values are left for a person with their key paths. Expected texts are written by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/config_rewriter.h"
#include "rules/core/catalog.h"
#include "rules/sources/config_document.h"

namespace {

banjia::migrate::FileRewrite rw(const std::string& text, const std::string& name,
                                std::string_view target = banjia::rules::kTargetNpu) {
  return banjia::migrate::rewrite_config(text, name, *banjia::rules::RuleCatalog::for_target(target));
}

std::vector<std::string> left(const banjia::migrate::FileRewrite& fr) {
  std::vector<std::string> out;
  for (const auto& f : fr.leftovers) out.push_back(f.rule + "@" + std::to_string(f.line));
  return out;
}

}  // namespace

TEST(ConfigRewrite, YamlValuesUnderTheirKeysAndNothingElse) {
  const std::string text =
      "# keep: device: cuda\r\n"
      "trainer:\r\n"
      "  device:   cuda     # one per rank\r\n"
      "  eval_device: \"cuda:1\"\r\n"
      "dist: {backend: 'cpu:gloo,cuda:nccl', dist_backend: nccl}\r\n"
      "env:\r\n"
      "  CUDA_VISIBLE_DEVICES: '0'\r\n";
  const std::string want =
      "# keep: device: cuda\r\n"
      "trainer:\r\n"
      "  device:   npu     # one per rank\r\n"
      "  eval_device: \"cuda:1\"\r\n"
      "dist: {backend: 'cpu:gloo,npu:hccl', dist_backend: hccl}\r\n"
      "env:\r\n"
      "  CUDA_VISIBLE_DEVICES: '0'\r\n";
  const auto fr = rw(text, "conf/train.yaml");
  EXPECT_EQ(fr.rewritten, want);
  ASSERT_EQ(fr.changes.size(), 3u);
  EXPECT_EQ(fr.changes[0].rule, "config-device");
  EXPECT_EQ(fr.changes[0].line, 3);
  EXPECT_EQ(fr.changes[0].before, "cuda");
  const auto l = left(fr);
  EXPECT_EQ(l, (std::vector<std::string>{"config-cuda-value@4", "config-env-var@7"}));
  EXPECT_EQ(rw(fr.rewritten, "conf/train.yaml").rewritten, fr.rewritten);  // idempotent
}

TEST(ConfigRewrite, JsonAndToml) {
  EXPECT_EQ(rw("{\"device\": \"cuda\", \"backend\": \"NCCL\", \"x\": \"cuda\"}", "c.json").rewritten,
            "{\"device\": \"npu\", \"backend\": \"HCCL\", \"x\": \"cuda\"}");
  EXPECT_EQ(rw("[run]\ndevice = 'cuda:3'  # x\nbackend = \"nccl\"\n", "c.toml").rewritten,
            "[run]\ndevice = 'npu:3'  # x\nbackend = \"hccl\"\n");
  // an escaped spelling is reported, not edited
  const auto esc = rw("{\"device\": \"cu\\u0064a\"}", "c.json");
  EXPECT_EQ(esc.rewritten, "{\"device\": \"cu\\u0064a\"}");
  EXPECT_EQ(left(esc), (std::vector<std::string>{"config-device@1"}));
}

TEST(ConfigRewrite, TheAcceleratorTargetReportsOnly) {
  const std::string text = "device: cuda\nbackend: nccl\n";
  const auto fr = rw(text, "c.yaml", banjia::rules::kTargetAccelerator);
  EXPECT_EQ(fr.rewritten, text);
  EXPECT_EQ(left(fr), (std::vector<std::string>{"config-device@1", "config-backend@2"}));
}

TEST(ConfigRewrite, BadAndHugeFilesAreStatusesNotCrashes) {
  const auto bad = rw("device: [cuda\n", "c.yaml");
  EXPECT_EQ(bad.rewritten, "device: [cuda\n");
  ASSERT_EQ(bad.leftovers.size(), 1u);
  EXPECT_EQ(bad.leftovers[0].rule, "input-error");
  std::string huge = "{\"device\": \"cuda\", \"pad\": \"" + std::string(banjia::rules::kMaxConfigBytes, 'x') + "\"}";
  const auto skipped = rw(huge, "vocab.json");
  EXPECT_EQ(skipped.rewritten, huge);
  ASSERT_EQ(skipped.leftovers.size(), 1u);
  EXPECT_EQ(skipped.leftovers[0].rule, "input-skipped");
  EXPECT_EQ(skipped.leftovers[0].severity, banjia::Severity::info);
}
