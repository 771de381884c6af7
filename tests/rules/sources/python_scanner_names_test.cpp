// What scan reports for names reached other than by `import torch`: module-level aliases, `cuda`
// beside `from torch import *`, torch.cuda.nccl, torch.version.cuda, and attributes the file assigns.
#include <gtest/gtest.h>

#include <algorithm>

#include "rules/analyses/python_analysis.h"
#include "rules/core/catalog.h"
#include "rules/sources/python_scanner.h"

namespace {

std::vector<banjia::Finding> scan(const std::string& src) {
  std::vector<banjia::Finding> out;
  banjia::rules::scan_python(src, "t.py", banjia::rules::RuleCatalog::builtin(), out);
  return out;
}

// "rule@line" for every finding, in order.
std::vector<std::string> hits(const std::string& src) {
  std::vector<std::string> out;
  for (const auto& f : scan(src)) out.push_back(f.rule + "@" + std::to_string(f.line));
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST(NameResolutionScan, CalleeOfAnAliasedFunctionIsItsQualifiedName) {
  const std::string src = "import torch.distributed as dist\nipg = dist.init_process_group\nipg(\"nccl\", rank=0)\n";
  auto a = banjia::rules::analyse_python(src, "t.py");
  uint32_t open = 0;
  for (uint32_t si = 0; si < a->view.sig.size(); ++si)
    if (a->view.tok(si).line == 3 && a->sig_is_op(si, "(")) open = si;
  ASSERT_NE(open, 0u);
  const banjia::rules::Callee c = banjia::rules::callee_of(*a, open);
  EXPECT_EQ(c.qualified, "torch.distributed.init_process_group");
  EXPECT_EQ(c.last, "ipg");
  EXPECT_FALSE(c.is_method);
}

TEST(NameResolutionScan, AliasAssignmentAndItsUsesAreReported) {
  auto h = hits("import torch\nsync = torch.cuda.synchronize\nsync()\n");
  EXPECT_TRUE(has(h, "torch-cuda-api@2")) << ::testing::PrintToString(h);
  EXPECT_TRUE(has(h, "torch-cuda-api@3")) << ::testing::PrintToString(h);
}

TEST(NameResolutionScan, CudaBesideStarImportOfTorch) {
  auto h = hits("from torch import *\ncuda.synchronize()\nn = cuda.device_count()\n");
  EXPECT_TRUE(has(h, "torch-cuda-api@2"));
  EXPECT_TRUE(has(h, "torch-cuda-api@3"));
  // numba's cuda is not torch's
  EXPECT_TRUE(hits("from torch import *\nfrom numba import cuda\ncuda.synchronize()\n").empty());
}

TEST(NameResolutionScan, TorchCudaNcclImportsAndUses) {
  for (const char* src : {"import torch.cuda.nccl\n", "from torch.cuda import nccl\n", "import torch.cuda.nccl as nccl\n"}) {
    auto fs = scan(src);
    ASSERT_EQ(fs.size(), 1u) << src;
    EXPECT_EQ(fs[0].rule, "torch-cuda-nccl");
    EXPECT_EQ(fs[0].fix, banjia::FixKind::unsupported);
    EXPECT_EQ(fs[0].line, 1);
  }
  auto h = hits("from torch.cuda import nccl\nnccl.all_reduce(ts)\n");
  EXPECT_TRUE(has(h, "torch-cuda-nccl@1"));
  EXPECT_TRUE(has(h, "torch-cuda-unsupported@2"));
}

TEST(NameResolutionScan, TorchVersionCuda) {
  auto fs = scan("import torch\nif torch.version.cuda:\n    print(torch.version.cuda)\n");
  ASSERT_EQ(fs.size(), 2u);
  for (const auto& f : fs) {
    EXPECT_EQ(f.rule, "torch-version-cuda");
    EXPECT_EQ(f.fix, banjia::FixKind::manual);
  }
  EXPECT_EQ(fs[0].column, 4);
  EXPECT_EQ(fs[1].line, 3);
  EXPECT_TRUE(scan("import torch\nv = torch.version.hip\n").empty());
}

// The prefilter must let through a loop call reached by a module-level alias: only the alias
// statement holds `matmul`.
TEST(NameResolutionScan, LoopCallThroughAModuleLevelAliasPassesThePrefilter) {
  auto h = hits("import torch\nprod = torch.matmul\nfor w in ws:\n    y = prod(x, w)\n");
  EXPECT_TRUE(has(h, "matmul-in-loop@4")) << ::testing::PrintToString(h);
}

TEST(NameResolutionScan, AttributeTheFileAssignsIsNotTorchs) {
  const std::string src =
      "class R:\n"
      "    def __init__(self, kind):\n"
      "        self.is_cuda = kind == 'gpu'\n"
      "    def f(self, x):\n"
      "        if self.is_cuda:\n"
      "            return x.is_cuda\n";
  auto h = hits(src);
  EXPECT_EQ(h, std::vector<std::string>{"tensor-is-cuda@6"});
  // `.cuda = ...` the same way: `self.cuda(...)` is then the user's too
  auto c = hits("class R:\n    def __init__(self):\n        self.cuda = make()\n        self.cuda(1)\n        t.cuda()\n");
  EXPECT_EQ(c, std::vector<std::string>{"tensor-cuda-call@5"});
}
