// migrate on names reached through `from torch import cuda`, `from torch import *`, module-level
// aliases, torch.profiler, and on attributes the file assigns. Expected outputs are written by hand
// from what Python binds: `torch.npu` exists only after `import torch_npu`, so that import must come
// before the first statement that names torch.npu.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "rules/core/catalog.h"

namespace {

banjia::migrate::FileRewrite rw(const std::string& src) {
  return banjia::migrate::rewrite_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), {});
}
std::string migrated(const std::string& src) { return rw(src).rewritten; }

bool left_for_manual(const banjia::migrate::FileRewrite& fr, const std::string& rule) {
  return std::any_of(fr.leftovers.begin(), fr.leftovers.end(), [&](const auto& f) { return f.rule == rule; });
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ModuleRewrite, FromTorchImportCudaKeepsTheBoundName) {
  EXPECT_EQ(migrated("from torch import cuda\nif cuda.is_available():\n    cuda.synchronize()\n"),
            "import torch_npu\nfrom torch import npu as cuda\nif cuda.is_available():\n    cuda.synchronize()\n");
  EXPECT_EQ(migrated("import torch\nfrom torch import cuda as tc\ntc.synchronize()\n"),
            "import torch\nimport torch_npu\nfrom torch import npu as tc\ntc.synchronize()\n");
}

TEST(ModuleRewrite, FromTorchImportCudaWithAnUnsupportedUseIsLeftAndReported) {
  const std::string src = "from torch import cuda\ncuda.synchronize()\ncuda.nvtx.range_push('a')\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(left_for_manual(fr, "torch-cuda-module"));
}

TEST(ModuleRewrite, CudaBesideStarImport) {
  // No `torch` bound: torch.npu is spelled torch_npu.npu, which the inserted import binds.
  EXPECT_EQ(migrated("from torch import *\ncuda.synchronize()\n"),
            "from torch import *\nimport torch_npu\ntorch_npu.npu.synchronize()\n");
  EXPECT_EQ(migrated("import torch\nfrom torch import *\nn = cuda.device_count()\n"),
            "import torch\nimport torch_npu\nfrom torch import *\nn = torch.npu.device_count()\n");
}

TEST(ModuleRewrite, ModuleLevelAliasIsRewrittenWhereItIsAssigned) {
  EXPECT_EQ(migrated("import torch\nsync = torch.cuda.synchronize\nsync()\n"),
            "import torch\nimport torch_npu\nsync = torch.npu.synchronize\nsync()\n");
  // An alias also used for what torch.npu lacks stays, and says why.
  const std::string src = "import torch\ntc = torch.cuda\ntc.synchronize()\ntc.nvtx.range_push('a')\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(left_for_manual(fr, "torch-cuda-module"));
}

TEST(ModuleRewrite, FromImportOfSupportedAndUnsupportedNamesIsNotRewritten) {
  // Rewriting the module path would break `nvtx`, which torch.npu does not have.
  const std::string src = "import torch\nfrom torch.cuda import synchronize, nvtx\nsynchronize()\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(left_for_manual(fr, "torch-cuda-api"));
}

TEST(ModuleRewrite, ImportedIsNcclAvailableIsNotRenamedWithoutItsImport) {
  const std::string src = "from torch.distributed import is_nccl_available\nok = is_nccl_available()\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);  // renaming the call alone would leave is_hccl_available unbound
  EXPECT_TRUE(left_for_manual(fr, "is-nccl-available"));
}

TEST(ModuleRewrite, ProfilerMovesToTorchNpuProfiler) {
  const std::string src =
      "import torch\n"
      "import torch.profiler as tp\n"
      "from torch.profiler import ProfilerActivity, schedule\n"
      "with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
      "                            schedule=schedule(wait=1, active=2),\n"
      "                            on_trace_ready=tp.tensorboard_trace_handler('./log')) as prof:\n"
      "    prof.step()\n";
  const std::string want =
      "import torch\n"
      "import torch_npu\n"
      "import torch_npu.profiler as tp\n"
      "from torch_npu.profiler import ProfilerActivity, schedule\n"
      "with torch_npu.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],\n"
      "                            schedule=schedule(wait=1, active=2),\n"
      "                            on_trace_ready=tp.tensorboard_trace_handler('./log')) as prof:\n"
      "    prof.step()\n";
  EXPECT_EQ(migrated(src), want);
  EXPECT_EQ(migrated(want), want);
}

TEST(ModuleRewrite, ProfilerNeedsTheNameTorchNpu) {
  // transfer_to_npu imported, but the name torch_npu unbound: `torch_npu.profiler` would not resolve.
  const std::string src = "from torch_npu.contrib import transfer_to_npu\nimport torch\nwith torch.profiler.profile():\n    pass\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(left_for_manual(fr, "torch-profiler"));
}

TEST(ModuleRewrite, InsertedImportBeforeAReplacedFirstToken) {
  // The insertion point and the edited `cuda` share an offset: the import must come first.
  EXPECT_EQ(migrated("from torch import *\ncuda.synchronize()\ncuda.empty_cache()\n"),
            "from torch import *\nimport torch_npu\ntorch_npu.npu.synchronize()\ntorch_npu.npu.empty_cache()\n");
}

TEST(ModuleRewrite, MigratingTwiceEqualsOnce) {
  const char* cases[] = {
      "from torch import cuda\ncuda.synchronize()\n",
      "from torch import *\ncuda.synchronize()\n",
      "import torch\nsync = torch.cuda.synchronize\nsync()\n",
      "from torch.profiler import profile, ProfilerActivity\nprofile(activities=[ProfilerActivity.CUDA])\n",
  };
  for (const char* c : cases) {
    const std::string once = migrated(c);
    EXPECT_NE(once, c);
    EXPECT_EQ(migrated(once), once) << c;
  }
}

// The real-world case: a class that already had an NPU branch. Renaming its own `is_cuda` flag
// would give it two `is_npu` branches, and its CUDA branch is the GPU path, which stays
// (src/rules/safety/rewrite_safety_gpu_paths.cpp); tensors' `.is_cuda` outside the branches is still rewritten.
TEST(UserAttributes, AnAssignedIsCudaFlagKeepsItsName) {
  const std::string src =
      "import torch\n"
      "class Runner:\n"
      "    def __init__(self, kind):\n"
      "        self.is_npu = kind == 'npu'\n"
      "        self.is_cuda = kind == 'gpu'\n"
      "    def place(self, x):\n"
      "        if self.is_npu:\n"
      "            return x.npu()\n"
      "        elif self.is_cuda:\n"
      "            return x.cuda()\n"
      "        return x if not x.is_cuda else x.cpu()\n";
  const std::string out = migrated(src);
  EXPECT_EQ(count(out, "self.is_npu"), 2u) << out;
  EXPECT_EQ(count(out, "self.is_cuda"), 2u) << out;
  EXPECT_NE(out.find("elif self.is_cuda:\n            return x.cuda()"), std::string::npos) << out;
  EXPECT_NE(out.find("not x.is_npu"), std::string::npos) << out;
}
