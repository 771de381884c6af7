// The checks of src/rules/safety/ on whole files: what migrate leaves as it was, and why. The expected
// outputs are written from the Python semantics of each program (what would run on an NPU), not
// copied from banjia's output.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "migrate/rewrite_helpers.h"
#include "rules/core/catalog.h"

namespace {

using banjia::migrate::FileRewrite;

FileRewrite rw(const std::string& src, std::string_view target = banjia::rules::kTargetNpu) {
  return banjia::testing::rewrite_file(src, target, /*insert_import=*/true);
}

const banjia::Finding* leftover(const FileRewrite& r, const std::string& rule, int line) {
  auto it = std::find_if(r.leftovers.begin(), r.leftovers.end(),
                         [&](const banjia::Finding& f) { return f.rule == rule && f.line == line; });
  return it == r.leftovers.end() ? nullptr : &*it;
}

bool mentions(const banjia::Finding* f, std::string_view text) { return f && f->message.find(text) != std::string::npos; }

}  // namespace

TEST(ResultUses, CapabilityComparedThroughANameInAFunctionStays) {
  const std::string src =
      "import torch\n"
      "def supports_bf16():\n"
      "    cap = torch.cuda.get_device_capability()\n"
      "    return cap >= (8, 0)\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  const auto* f = leftover(r, "torch-cuda-device-capability", 3);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(mentions(f, "compared (line 4)")) << f->message;
  EXPECT_TRUE(mentions(f, "returns None")) << f->message;
}

TEST(ResultUses, PropertiesReadForSupportedFieldsAreRewrittenWithTheirCaution) {
  const auto r = rw("import torch\nmem = torch.cuda.get_device_properties(0).total_memory\n");
  EXPECT_EQ(r.rewritten, "import torch\nimport torch_npu\nmem = torch.npu.get_device_properties(0).total_memory\n");
  ASSERT_EQ(r.changes.size(), 2u);
  const auto change = std::find_if(r.changes.begin(), r.changes.end(), [](const auto& c) { return c.rule == "torch-cuda-device-query"; });
  ASSERT_NE(change, r.changes.end());
  EXPECT_NE(change->caution.find("total_memory"), std::string::npos);
}

TEST(ResultUses, ABlockedUseKeepsTheImportThatCarriesIt) {
  // `from torch.cuda import a, b`: the import's module path is shared; one unsafe use keeps it all.
  const std::string src =
      "from torch.cuda import get_device_capability, synchronize\n"
      "major, minor = get_device_capability()\n"
      "synchronize()\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "torch-cuda-device-capability", 2), "unpacked"));
}

TEST(Checks, NegatedTestSelectsTheLaterArms) {
  // `if not torch.cuda.is_available(): ... else: <NVTX>`: the else arm is what the check selects.
  const std::string src =
      "import torch\n"
      "if not torch.cuda.is_available():\n"
      "    pass\n"
      "else:\n"
      "    torch.cuda.nvtx.range_push('x')\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "torch-cuda-api", 2), "line 5"));
}

TEST(Checks, ACheckWhoseCodeIsAllRewrittenIsRewritten) {
  const auto r = rw("import torch\nif torch.cuda.is_available():\n    x = x.cuda()\n    torch.cuda.synchronize()\n");
  EXPECT_EQ(r.rewritten, "import torch\nimport torch_npu\nif torch.npu.is_available():\n    x = x.npu()\n    torch.npu.synchronize()\n");
  EXPECT_TRUE(r.leftovers.empty());
}

TEST(Checks, AnInnerCheckKeptForNvtxLetsTheOuterOneMove) {
  // The inner comparison stays for NVTX; NVTX stays with it and is false on an NPU, so the outer
  // check's code keeps no CUDA use that would run there: the outer check is rewritten.
  const std::string src =
      "import torch\n"
      "if torch.cuda.is_available():\n"
      "    model = model.cuda()\n"
      "    if device.type == 'cuda':\n"
      "        torch.cuda.nvtx.range_push('x')\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten,
            "import torch\n"
            "import torch_npu\n"
            "if torch.npu.is_available():\n"
            "    model = model.npu()\n"
            "    if device.type == 'cuda':\n"
            "        torch.cuda.nvtx.range_push('x')\n");
  EXPECT_TRUE(mentions(leftover(r, "device-string", 4), "line 5"));
}

TEST(Checks, DataParallelUnderADeviceCountTestStays) {
  const std::string src = "import torch\nif torch.cuda.device_count() > 1:\n    model = torch.nn.DataParallel(model)\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "torch-cuda-api", 2), "DataParallel"));
}

TEST(Checks, AWhileLoopSelectsItsBody) {
  const std::string src = "import torch\nwhile torch.cuda.is_available():\n    torch.cuda.nvtx.range_pop()\n    break\n";
  EXPECT_EQ(rw(src).rewritten, src);
}

TEST(GpuPaths, ElifCudaArmOfAnNpuAwareFileStaysAndIsNamed) {
  const std::string src =
      "import torch\n"
      "def sync(device):\n"
      "    if device.type == 'npu':\n"
      "        torch.npu.synchronize()\n"
      "    elif device.type == 'cuda':\n"
      "        torch.cuda.synchronize()\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  ASSERT_EQ(r.gpu_paths.size(), 1u);
  EXPECT_NE(r.gpu_paths[0].message.find("lines 5, 6"), std::string::npos) << r.gpu_paths[0].message;
  EXPECT_TRUE(r.leftovers.empty());
}

TEST(GpuPaths, AFileWithoutAnNpuTestIsMigratedAsUsual) {
  const auto r = rw("import torch\nimport torch_npu\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n");
  EXPECT_EQ(r.rewritten, "import torch\nimport torch_npu\nif torch.npu.is_available():\n    torch.npu.synchronize()\n");
  EXPECT_TRUE(r.gpu_paths.empty());
}

TEST(AcceleratorTarget, PositionalAutocastIsPassedByKeywordNextToItsScaler) {
  const auto r = rw(
      "import torch\n"
      "scaler = torch.cuda.amp.GradScaler(enabled=use_amp)\n"
      "with torch.cuda.amp.autocast(use_amp):\n"
      "    pass\n",
      banjia::rules::kTargetAccelerator);
  EXPECT_NE(r.rewritten.find("torch.amp.autocast("), std::string::npos) << r.rewritten;
  EXPECT_NE(r.rewritten.find("enabled=use_amp):"), std::string::npos) << r.rewritten;
  EXPECT_NE(r.rewritten.find("torch.amp.GradScaler("), std::string::npos) << r.rewritten;
  EXPECT_EQ(r.rewritten.find("torch.cuda"), std::string::npos) << r.rewritten;
}

TEST(AcceleratorTarget, SeedUnderItsCheckMovesWithIt) {
  const auto r = rw("import torch\nif torch.cuda.is_available():\n    torch.cuda.manual_seed(42)\n",
                    banjia::rules::kTargetAccelerator);
  EXPECT_EQ(r.rewritten,
            "import torch\nif torch.accelerator.is_available():\n"
            "    (torch.get_device_module().manual_seed(42) if torch.accelerator.is_available() else None)\n");
}

// Patterns of public LLM code bases (bench/corpus.tsv), each written from the program's meaning: the
// check decides whether NVIDIA-only code runs, so flipping it would run that code on the NPU.
TEST(Checks, AnEarlyExitUnderANegatedCheckSelectsTheRestOfTheFunction) {
  const std::string src =
      "import torch\n"
      "def wrap(fn):\n"
      "    if not (device_type == 'cuda' and torch.version.hip is None):\n"
      "        return fn\n"
      "    graph = torch.cuda.CUDAGraph()\n"
      "    return graph\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "device-string", 3), "line 5")) << r.leftovers.size();
}

TEST(Checks, ADeviceNameTableOfNvidiaModelsStays) {
  const std::string src =
      "import torch\n"
      "def flops(device):\n"
      "    if device.type == 'cuda':\n"
      "        name = torch.cuda.get_device_name(device).lower()\n"
      "        if 'h100' in name:\n"
      "            return 989e12\n"
      "    return None\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "device-string", 3), "\"h100\"")) << r.leftovers.size();
}

TEST(Checks, Fp8CodeSelectedByANegatedCheckStays) {
  const std::string src =
      "if device_type != 'cuda':\n"
      "    print('FP8 needs CUDA')\n"
      "else:\n"
      "    from nanochat.fp8 import convert_to_float8_training\n"
      "    convert_to_float8_training(model)\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "device-string", 1), "FP8"));
}

TEST(GpuPaths, AnAscendPluginTestMakesTheFileNpuAware) {
  const std::string src =
      "import torch\n"
      "if is_vllm_ascend_available():\n"
      "    from vllm_ascend.distributed import PyHcclCommunicator\n"
      "if torch.cuda.is_available():\n"
      "    module = torch.cuda\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_EQ(r.gpu_paths.size(), 1u);
}

TEST(Checks, TheChecksOfOneTestChangeTogether) {
  // torchtitan's CUDA-graph wrapper: `torch.cuda.is_available()` stays for the CUDA-graph code it
  // selects, so the comparison beside it in the same test stays too.
  const std::string src =
      "import torch\n"
      "def wrap(fn):\n"
      "    if not (device_type == 'cuda' and torch.cuda.is_available()):\n"
      "        return fn\n"
      "    return CUDAGraphWrapper(fn)\n";
  const auto r = rw(src);
  EXPECT_EQ(r.rewritten, src);
  EXPECT_TRUE(mentions(leftover(r, "device-string", 3), "changes as a whole"));
  EXPECT_TRUE(mentions(leftover(r, "torch-cuda-api", 3), "CUDAGraphWrapper"));
}
