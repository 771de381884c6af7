// Environment variable names in the positions that set a child's or this process's environment
// (dict displays, dict(os.environ, ...), os.environ.update, a call's env=), and the force-CPU idiom:
// CUDA_VISIBLE_DEVICES="-1" or "" hides every GPU (torch's _parse_visible_devices returns [] for both),
// which ASCEND_RT_VISIBLE_DEVICES cannot express, so it is reported and left, in Python and in shell.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "migrate/shell_rewriter.h"
#include "rules/core/catalog.h"
#include "rules/sources/python_scanner.h"

namespace {

banjia::migrate::FileRewrite rw(const std::string& src) {
  banjia::migrate::RewriteOptions o;
  o.insert_import = false;  // these files need no torch_npu; the import has its own tests
  return banjia::migrate::rewrite_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), o);
}

std::vector<std::string> rules_left(const banjia::migrate::FileRewrite& fr) {
  std::vector<std::string> out;
  for (const auto& f : fr.leftovers) out.push_back(f.rule + "@" + std::to_string(f.line) + ":" + std::to_string(f.column));
  return out;
}

std::vector<std::string> scan_hits(const std::string& src) {
  std::vector<banjia::Finding> fs;
  banjia::rules::scan_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), fs);
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.rule + "@" + std::to_string(f.line) + ":" + std::to_string(f.column));
  return out;
}

}  // namespace

TEST(EnvironmentSites, EveryEnvironmentPositionIsRenamed) {
  const std::string src =
      "import os, subprocess\n"
      "e = {**os.environ, \"CUDA_VISIBLE_DEVICES\": \"1\"}\n"
      "f = dict(os.environ, CUDA_VISIBLE_DEVICES=\"1\")\n"
      "subprocess.run(c, env={\"CUDA_LAUNCH_BLOCKING\": \"0\"})\n"
      "os.environ.update(CUDA_VISIBLE_DEVICES=\"2\")\n"
      "os.environ.update({\"PYTORCH_CUDA_ALLOC_CONF\": x})\n";
  const std::string want =
      "import os, subprocess\n"
      "e = {**os.environ, \"ASCEND_RT_VISIBLE_DEVICES\": \"1\"}\n"
      "f = dict(os.environ, ASCEND_RT_VISIBLE_DEVICES=\"1\")\n"
      "subprocess.run(c, env={\"ASCEND_LAUNCH_BLOCKING\": \"0\"})\n"
      "os.environ.update(ASCEND_RT_VISIBLE_DEVICES=\"2\")\n"
      "os.environ.update({\"PYTORCH_NPU_ALLOC_CONF\": x})\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, want);
  EXPECT_EQ(fr.changes.size(), 5u);
  EXPECT_EQ(rw(want).rewritten, want);
  // Reported where the name is written: line 3 column 22 is the keyword `CUDA_VISIBLE_DEVICES`.
  auto hits = scan_hits(src);
  EXPECT_NE(std::find(hits.begin(), hits.end(), "cuda-env-var@3:22"), hits.end()) << ::testing::PrintToString(hits);
  EXPECT_NE(std::find(hits.begin(), hits.end(), "cuda-env-var@2:20"), hits.end()) << ::testing::PrintToString(hits);
}

TEST(EnvironmentSites, DictsAndKeywordsThatAreNotEnvironmentsStay) {
  const char* cases[] = {
      "names = {\"CUDA_VISIBLE_DEVICES\": \"gpus\"}\n",          // a plain dict
      "d = dict(config, CUDA_VISIBLE_DEVICES=\"1\")\n",          // not built on os.environ
      "cfg.update(CUDA_VISIBLE_DEVICES=\"1\")\n",                // not os.environ
      "cfg.update({\"CUDA_VISIBLE_DEVICES\": \"1\"})\n",         // not os.environ
      "x = {**defaults, \"CUDA_VISIBLE_DEVICES\": \"1\"}\n",     // unpacks something else
      "f(envs={\"CUDA_VISIBLE_DEVICES\": \"1\"})\n",             // another keyword
  };
  for (const char* c : cases) {
    EXPECT_TRUE(scan_hits(std::string("import os\n") + c).empty()) << c;
    EXPECT_EQ(rw(c).rewritten, c);
  }
}

TEST(EnvironmentSites, ForceCpuIdiomIsReportedNotTranslated) {
  const std::string src =
      "import os\n"
      "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"-1\"\n"
      "os.environ.setdefault(\"CUDA_VISIBLE_DEVICES\", \"\")\n"
      "os.putenv(\"CUDA_VISIBLE_DEVICES\", \"-1\")\n"
      "env = {**os.environ, \"CUDA_VISIBLE_DEVICES\": \"\"}\n"
      "env2 = dict(os.environ, CUDA_VISIBLE_DEVICES=\"-1\")\n"
      "os.environ.update(CUDA_VISIBLE_DEVICES=\"-1\")\n"
      "print(os.environ.get(\"CUDA_VISIBLE_DEVICES\"))\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_EQ(rules_left(fr), (std::vector<std::string>{
                                "cuda-visible-devices-hide-all@2:12", "cuda-visible-devices-hide-all@3:23",
                                "cuda-visible-devices-hide-all@4:11", "cuda-visible-devices-hide-all@5:22",
                                "cuda-visible-devices-hide-all@6:25", "cuda-visible-devices-hide-all@7:19",
                                // the read keeps the name it was set under
                                "cuda-visible-devices-hide-all@8:22"}));
}

TEST(EnvironmentSites, DeviceListsBesideTheIdiomAreTranslated) {
  const std::string src =
      "import os\n"
      "if cpu_only:\n"
      "    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"-1\"\n"
      "else:\n"
      "    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0,1\"\n"
      "n = os.environ.get(\"CUDA_VISIBLE_DEVICES\")\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten,
            "import os\n"
            "if cpu_only:\n"
            "    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"-1\"\n"
            "else:\n"
            "    os.environ[\"ASCEND_RT_VISIBLE_DEVICES\"] = \"0,1\"\n"
            "n = os.environ.get(\"ASCEND_RT_VISIBLE_DEVICES\")\n");
  EXPECT_EQ(rules_left(fr), std::vector<std::string>{"cuda-visible-devices-hide-all@3:16"});
}

TEST(EnvironmentSites, ForceCpuIdiomInShellScripts) {
  const std::string src = "export CUDA_VISIBLE_DEVICES=-1\nCUDA_VISIBLE_DEVICES= python eval.py\n";
  auto fr = banjia::migrate::rewrite_shell(src, "run.sh");
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(fr.changes.empty());
  ASSERT_EQ(fr.leftovers.size(), 2u);
  EXPECT_EQ(fr.leftovers[0].line, 1);
  EXPECT_EQ(fr.leftovers[1].line, 2);
  EXPECT_NE(fr.leftovers[1].message.find("hides every GPU"), std::string::npos);
  auto list = banjia::migrate::rewrite_shell("export CUDA_VISIBLE_DEVICES=0\n", "run.sh");
  EXPECT_EQ(list.rewritten, "export ASCEND_RT_VISIBLE_DEVICES=0\n");
}
