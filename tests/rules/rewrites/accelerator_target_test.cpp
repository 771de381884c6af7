// migrate --target accelerator on single files: the import it needs (torch, never torch_npu), what
// it leaves, shell scripts kept as they are, and the guarantees of every target (the output
// tokenizes, migrating it again changes nothing) over the fuzz seeds and the examples.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/file_io.h"
#include "migrate/python_rewriter.h"
#include "migrate/shell_rewriter.h"
#include "python/tokenizer.h"
#include "rules/core/catalog.h"

namespace {

using banjia::rules::kTargetAccelerator;
using banjia::rules::RuleCatalog;

const RuleCatalog& accelerator_rules() { return *RuleCatalog::for_target(kTargetAccelerator); }

banjia::migrate::FileRewrite rw(const std::string& src) {
  banjia::migrate::RewriteOptions o;
  o.target = std::string(kTargetAccelerator);
  return banjia::migrate::rewrite_python(src, "t.py", accelerator_rules(), o);
}

bool left_for_a_person(const banjia::migrate::FileRewrite& fr, const std::string& rule) {
  for (const auto& f : fr.leftovers)
    if (f.rule == rule) return true;
  return false;
}

}  // namespace

TEST(AcceleratorTarget, ImportsTorchWhereTheFileDoesNotAndNeverTorchNpu) {
  auto fr = rw("import torch.distributed as dist\ndist.init_process_group('nccl')\n");
  EXPECT_EQ(fr.rewritten,
            "import torch.distributed as dist\nimport torch\ndist.init_process_group(torch.distributed."
            "get_default_backend_for_device((torch.accelerator.current_accelerator(check_available=True) or "
            "torch.device('cpu')).type))\n");
  bool inserted = false;
  for (const auto& c : fr.changes) inserted = inserted || c.rule == "import-torch";
  EXPECT_TRUE(inserted);

  // `import torch as th` does not bind `torch`: the expressions need it.
  EXPECT_EQ(rw("import torch as th\nx = th.zeros(2).cuda()\n").rewritten,
            "import torch as th\nimport torch\nx = th.zeros(2).to((torch.accelerator.current_accelerator("
            "check_available=True) or torch.device('cpu')).type)\n");
  // Renames and call templates keep the file's own spelling of torch and need nothing more.
  EXPECT_EQ(rw("import torch as th\nn = th.cuda.device_count()\n").rewritten, "import torch as th\nn = th.accelerator.device_count()\n");
  EXPECT_EQ(rw("import torch as th\nth.cuda.synchronize()\n").rewritten,
            "import torch as th\n(th.accelerator.synchronize() if th.accelerator.is_available() else None)\n");
}

// A device value wrapped in an expression keeps the edits inside it: the f-string's field is
// rewritten in the same pass (torch's own _prims/rng_prims.py spells a device so).
TEST(AcceleratorTarget, EditsInsideAWrappedDeviceValueApplyInTheSamePass) {
  auto fr = rw("import torch\nd = torch.device(f\"cuda:{torch.cuda.current_device()}\")\n");
  EXPECT_EQ(fr.rewritten,
            "import torch\nd = torch.device((torch.accelerator.current_accelerator().type + "
            "f\":{torch.accelerator.current_device_index()}\" if torch.accelerator.is_available() else \"cpu\"))\n");
  EXPECT_EQ(rw(fr.rewritten).rewritten, fr.rewritten);
  auto fmt = rw("import torch\nd = torch.device('cuda:{}'.format(torch.cuda.current_device()))\n");
  EXPECT_EQ(fmt.rewritten,
            "import torch\nd = torch.device((torch.accelerator.current_accelerator().type + "
            "':{}'.format(torch.accelerator.current_device_index()) if torch.accelerator.is_available() else 'cpu'))\n");
}

TEST(AcceleratorTarget, WhatHasNoDeviceAgnosticFormStaysAndIsReported) {
  const std::string src =
      "import torch\nimport os\ns = torch.cuda.Stream()\nif x.is_cuda:\n    pass\n"
      "os.environ['CUDA_VISIBLE_DEVICES'] = '0'\nm = m.cuda(dev)\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(left_for_a_person(fr, "torch-cuda-api"));
  EXPECT_TRUE(left_for_a_person(fr, "tensor-is-cuda"));
  EXPECT_TRUE(left_for_a_person(fr, "cuda-env-var"));
  EXPECT_TRUE(left_for_a_person(fr, "tensor-cuda-call"));
}

// An indexed device is the accelerator with that index or the CPU: never torch.device('cpu', i),
// which CPU tensors do not report, and never a bare integer, which fails without an accelerator.
constexpr const char* kIndexedOpen = "(torch.device(torch.accelerator.current_accelerator().type, ";
constexpr const char* kIndexedClose = ") if torch.accelerator.is_available() else torch.device('cpu'))";

TEST(AcceleratorTarget, AnIndexedDeviceBecomesTheAcceleratorOrTheCpu) {
  auto fr = rw("import torch\nd = torch.device('cuda', torch.cuda.current_device())\nx = x.to(local_rank)\n"
               "y = torch.zeros(2, device=args.gpu)\nz = z.to(device)\n");
  EXPECT_EQ(fr.rewritten, std::string("import torch\nd = ") + kIndexedOpen + "torch.accelerator.current_device_index()" +
                              kIndexedClose + "\nx = x.to(" + kIndexedOpen + "local_rank" + kIndexedClose +
                              ")\ny = torch.zeros(2, device=" + kIndexedOpen + "args.gpu" + kIndexedClose +
                              ")\nz = z.to(device)\n");
  EXPECT_EQ(rw(fr.rewritten).rewritten, fr.rewritten);
}

TEST(AcceleratorTarget, SelectingADeviceHappensOnlyWithAnAccelerator) {
  auto fr = rw("import torch\nimport torch as th\ntorch.cuda.set_device(\n    torch.cuda.current_device())\nth.cuda.set_device(0)\n");
  EXPECT_EQ(fr.rewritten,
            "import torch\nimport torch as th\n(torch.accelerator.set_device_index(\n    torch.accelerator.current_device_index()) "
            "if torch.accelerator.is_available() else None)\n(th.accelerator.set_device_index(0) if th.accelerator.is_available() else None)\n");
  EXPECT_FALSE(left_for_a_person(fr, "torch-cuda-api"));  // the template is spelled through th
  EXPECT_EQ(rw(fr.rewritten).rewritten, fr.rewritten);
}

TEST(AcceleratorTarget, DistributedDataParallelGetsNoDeviceIdsOnTheCpu) {
  auto fr = rw("import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
               "m = DDP(model, device_ids=[args.gpu], output_device=args.gpu)\n"
               "n = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])\n"
               "o = DDP(model, device_ids=[device])\n");
  EXPECT_EQ(fr.rewritten,
            "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
            "m = DDP(model, device_ids=[args.gpu] if torch.accelerator.is_available() else None, "
            "output_device=args.gpu if torch.accelerator.is_available() else None)\n"
            "n = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if torch.accelerator.is_available() else None)\n"
            "o = DDP(model, device_ids=[device])\n");
  EXPECT_EQ(rw(fr.rewritten).rewritten, fr.rewritten);
}

TEST(AcceleratorTarget, ShellScriptsAreKeptAndTheirCudaVariablesReported) {
  const std::string sh = "#!/bin/sh\nexport CUDA_VISIBLE_DEVICES=0,1\npython train.py\n";
  auto fr = banjia::migrate::report_shell(sh, "run.sh", accelerator_rules());
  EXPECT_FALSE(fr.changed());
  EXPECT_FALSE(fr.leftovers.empty());
}

TEST(AcceleratorTarget, OutputTokenizesAndMigratesToItselfOverTheSeedsAndExamples) {
  namespace fs = std::filesystem;
  const fs::path root(BANJIA_SOURCE_DIR);
  size_t changed = 0;
  for (const fs::path& dir : {root / "fuzz" / "corpus" / "rewrite", root / "examples" / "npu_sim", root / "examples" / "cifar_ddp"}) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string src = banjia::read_file(entry.path());
      auto once = rw(src);
      if (!once.changed()) continue;
      ++changed;
      if (!banjia::python::tokenize(src).error) {
        EXPECT_FALSE(banjia::python::tokenize(once.rewritten).error) << entry.path();
      }
      EXPECT_EQ(rw(once.rewritten).rewritten, once.rewritten) << entry.path();
    }
  }
  EXPECT_GE(changed, 8u);
}

TEST(AcceleratorTarget, FileWhereTorchNamesSomethingElseKeepsTheDeviceText) {
  // `torch` here is torch.cuda.amp's attribute, not the module: `torch.accelerator...` written into
  // this file would resolve to torch.cuda.amp.torch.accelerator (found by fuzz_rewrite).
  const std::string src = "from torch.cuda.amp import torch\nx = x.to(f'cuda:{r}')\n";
  auto fr = rw(src);
  EXPECT_EQ(fr.rewritten, src);
  bool said = false;
  for (const auto& f : fr.leftovers)
    said = said || f.message.find("`torch` in this file is torch.cuda.amp.torch") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(rw(fr.rewritten).rewritten, fr.rewritten);
}
