// The constructs of modern LLM code in Python: uses of CUDA-only modules reported at
// the import and at each use (module-use), a call keyword with a listed value (keyword-arg `values`),
// and the device type of a device mesh. Expected texts are written by hand from the rules.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "migrate/rewrite_helpers.h"
#include "rules/core/catalog.h"
#include "rules/sources/python_scanner.h"

namespace {

using banjia::rules::RuleCatalog;

banjia::migrate::FileRewrite rw(const std::string& src, std::string_view target = banjia::rules::kTargetNpu) {
  return banjia::testing::rewrite_file(src, target);
}

// "rule@line:column" of every finding of `src`.
std::vector<std::string> hits(const std::string& src) {
  std::vector<banjia::Finding> fs;
  banjia::rules::scan_python(src, "t.py", RuleCatalog::builtin(), fs);
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.rule + "@" + std::to_string(f.line) + ":" + std::to_string(f.column));
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST(ModuleUse, ReportsTheImportAndEveryUseOfTheModule) {
  const std::string src =
      "import transformer_engine.pytorch as te\n"  // 1: the import
      "from transformer_engine.common import recipe\n"  // 2: a from-import
      "layer = te.Linear(8, 8)\n"  // 3: a use through the alias
      "r = recipe.DelayedScaling()\n"  // 4: a use of a from-imported name
      "x = other.Linear(8, 8)\n";  // 5: not the module
  const auto h = hits(src);
  EXPECT_TRUE(has(h, "transformer-engine@1:8")) << ::testing::PrintToString(h);
  EXPECT_TRUE(has(h, "transformer-engine@2:39"));
  EXPECT_TRUE(has(h, "transformer-engine@3:9"));
  EXPECT_TRUE(has(h, "transformer-engine@4:5"));
  EXPECT_EQ(std::count_if(h.begin(), h.end(), [](const std::string& s) { return s.starts_with("transformer-engine@"); }), 4);
}

TEST(ModuleUse, AModuleIsMatchedByWholeComponents) {
  // rotary_emb is an extension module; rotary_embedding (a model's own module) is not it.
  EXPECT_TRUE(hits("import rotary_embedding\nrotary_embedding.apply(x)\n").empty());
  EXPECT_TRUE(has(hits("import rotary_emb\n"), "cuda-ext-rotary@1:8"));
}

TEST(KeywordArgValues, OnlyAListedLiteralIsReported) {
  EXPECT_TRUE(has(hits("import torch\nm = torch.compile(m, mode='reduce-overhead')\n"), "torch-compile-cuda-graphs@2:22"));
  // a name, or a mode without CUDA graphs, is not
  EXPECT_FALSE(has(hits("import torch\nm = torch.compile(m, mode=mode)\n"), "torch-compile-cuda-graphs@2:22"));
  EXPECT_FALSE(has(hits("import torch\nm = torch.compile(m, mode='default')\n"), "torch-compile-cuda-graphs@2:22"));
  // torch.compile is still reported as such
  EXPECT_TRUE(has(hits("import torch\nm = torch.compile(m, mode=mode)\n"), "torch-compile@2:5"));
}

TEST(DeviceMesh, ItsDeviceTypeIsADevice) {
  const std::string src =
      "import torch.distributed as dist\n"
      "from torch.distributed.device_mesh import init_device_mesh\n"
      "from torch.distributed.tensor import DeviceMesh\n"
      "m1 = init_device_mesh('cuda', (2, 4))\n"
      "m2 = dist.init_device_mesh(device_type='cuda', mesh_shape=(8,))\n"
      "m3 = DeviceMesh('cuda', [0, 1])\n";
  const std::string want =
      "import torch.distributed as dist\n"
      "from torch.distributed.device_mesh import init_device_mesh\n"
      "from torch.distributed.tensor import DeviceMesh\n"
      "m1 = init_device_mesh('npu', (2, 4))\n"
      "m2 = dist.init_device_mesh(device_type='npu', mesh_shape=(8,))\n"
      "m3 = DeviceMesh('npu', [0, 1])\n";
  EXPECT_EQ(rw(src).rewritten, want);
}
