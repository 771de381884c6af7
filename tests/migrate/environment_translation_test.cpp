// Environment variables set from Python are translated as `banjia env translate` translates them in
// shell (one table, data/env): names and literal values, also in a copy of the environment; what has
// no Ascend spelling is reported with the table's note. Expected texts are written by hand from
// data/env (cuda.toml, alloc_conf.toml).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "migrate/python_rewriter.h"
#include "migrate/rewrite_helpers.h"
#include "rules/core/catalog.h"
#include "rules/sources/python_scanner.h"

namespace {

using banjia::rules::RuleCatalog;

banjia::migrate::FileRewrite rw(const std::string& src, std::string_view target = banjia::rules::kTargetNpu) {
  return banjia::testing::rewrite_file(src, target);
}

std::vector<banjia::Finding> findings(const std::string& src) {
  std::vector<banjia::Finding> fs;
  banjia::rules::scan_python(src, "t.py", RuleCatalog::builtin(), fs);
  return fs;
}

// The first finding of `rule` on `line` whose message contains `says` ("" for any).
std::optional<banjia::Finding> finding(const std::string& src, const std::string& rule, int line, std::string_view says = "") {
  for (auto& f : findings(src))
    if (f.rule == rule && f.line == line && f.message.find(says) != std::string::npos) return f;
  return std::nullopt;
}

}  // namespace

TEST(EnvironmentFromPython, ValuesAreTranslatedAsEnvTranslateDoes) {
  // PYTORCH_CUDA_ALLOC_CONF: torch_npu's allocator rejects backend:cudaMallocAsync (data/env
  // alloc_conf.toml); expandable_segments is one of its options. NCCL_DETERMINISTIC 1 is true for HCCL.
  const std::string src =
      "import os\n"
      "os.environ[\"PYTORCH_CUDA_ALLOC_CONF\"] = \"backend:cudaMallocAsync,expandable_segments:True\"\n"
      "os.environ.setdefault('NCCL_DETERMINISTIC', '1')\n"
      "os.putenv(\"CUDA_LAUNCH_BLOCKING\", \"1\")\n";
  const std::string want =
      "import os\n"
      "os.environ[\"PYTORCH_NPU_ALLOC_CONF\"] = \"expandable_segments:True\"\n"
      "os.environ.setdefault('HCCL_DETERMINISTIC', 'true')\n"
      "os.putenv(\"ASCEND_LAUNCH_BLOCKING\", \"1\")\n";
  const auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, want);
  EXPECT_EQ(rw(fr.rewritten).rewritten, fr.rewritten);  // idempotent
  // the dropped option is said, and what the value becomes
  const auto value = finding(src, "cuda-env-var", 2, "dropped 'backend:cudaMallocAsync'");
  ASSERT_TRUE(value);
  EXPECT_EQ(value->replacement, "\"expandable_segments:True\"");
}

TEST(EnvironmentFromPython, AValueWithoutAnAscendSpellingIsReportedAndKept) {
  // HCCL_DETERMINISTIC takes false/true/strict: NCCL_DETERMINISTIC=2 has no mapping (data/env cuda.toml).
  const std::string src = "import os\nos.environ['NCCL_DETERMINISTIC'] = '2'\n";
  const auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, "import os\nos.environ['HCCL_DETERMINISTIC'] = '2'\n");
  bool said = false;
  for (const auto& f : fr.leftovers) said = said || (f.rule == "cuda-env-var" && f.message.find("'2' was kept as is") != std::string::npos);
  EXPECT_TRUE(said);
}

TEST(EnvironmentFromPython, APairNeedingAManualSettingSaysSo) {
  // NCCL_ALGO has a documented counterpart, HCCL_ALGO, with another syntax (not automatic in data/env).
  const auto f = finding("import os\nos.environ['NCCL_ALGO'] = 'Ring'\n", "cuda-env-var-no-equivalent", 2);
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("HCCL_ALGO needs a manual setting"), std::string::npos) << f->message;
  EXPECT_EQ(f->replacement, "HCCL_ALGO");
}

TEST(EnvironmentFromPython, ACopyOfTheEnvironmentIsAnEnvironment) {
  const std::string src =
      "import os, copy, subprocess\n"
      "env = os.environ.copy()\n"
      "env['CUDA_VISIBLE_DEVICES'] = '0,1'\n"
      "child = dict(os.environ)\n"
      "child.update({'CUDA_LAUNCH_BLOCKING': '1'})\n"
      "c2 = copy.copy(os.environ)\n"
      "c2.setdefault('CUDA_VISIBLE_DEVICES', '2')\n"
      "table = {}\n"
      "table['CUDA_VISIBLE_DEVICES'] = 'a column name'\n"
      "subprocess.run(cmd, env=env)\n";
  const std::string want =
      "import os, copy, subprocess\n"
      "env = os.environ.copy()\n"
      "env['ASCEND_RT_VISIBLE_DEVICES'] = '0,1'\n"
      "child = dict(os.environ)\n"
      "child.update({'ASCEND_LAUNCH_BLOCKING': '1'})\n"
      "c2 = copy.copy(os.environ)\n"
      "c2.setdefault('ASCEND_RT_VISIBLE_DEVICES', '2')\n"
      "table = {}\n"
      "table['CUDA_VISIBLE_DEVICES'] = 'a column name'\n"
      "subprocess.run(cmd, env=env)\n";
  EXPECT_EQ(rw(src).rewritten, want);
}

