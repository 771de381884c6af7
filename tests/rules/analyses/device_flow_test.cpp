// Device and backend values followed through names (rules/analyses/device_flow.h), as migrate applies them:
// the expected output of each case is the program that selects the NPU (or, where banjia cannot
// follow the value, the program unchanged with a report), written out by hand from the input.
#include <gtest/gtest.h>

#include <algorithm>

#include "../../../fuzz/device_invariant.h"
#include "migrate/python_rewriter.h"
#include "rules/core/catalog.h"

using namespace banjia;

namespace {

migrate::FileRewrite migrate_text(const std::string& src) {
  migrate::RewriteOptions opt;
  opt.insert_import = false;
  return migrate::rewrite_python(src, "t.py", rules::RuleCatalog::builtin(), opt);
}

std::vector<std::string> reported(const migrate::FileRewrite& fr, const std::string& rule) {
  std::vector<std::string> out;
  for (const auto& f : fr.leftovers)
    if (f.rule == rule) out.push_back(std::to_string(f.line) + ":" + std::to_string(f.column));
  return out;
}

void expect_migrates(const std::string& before, const std::string& after) {
  auto fr = migrate_text(before);
  EXPECT_EQ(fr.rewritten, after) << before;
  EXPECT_EQ(migrate_text(fr.rewritten).rewritten, fr.rewritten) << "not idempotent on:\n" << before;
  EXPECT_EQ(device_invariant_violation(fr.rewritten, fr.original), "") << before;
}

}  // namespace

TEST(DeviceFlow, ArgparseDefaultsAndChoicesFollowTheDest) {
  expect_migrates(
      "p.add_argument('--device', default='cuda', choices=['cuda', 'cpu'])\n"
      "p.add_argument('--dist-backend', default='nccl', type=str)\n"
      "args = p.parse_args()\n"
      "if args.dist_backend == 'nccl' and args.device != 'cpu':\n    pass\n",
      "p.add_argument('--device', default='npu', choices=['npu', 'cpu'])\n"
      "p.add_argument('--dist-backend', default='hccl', type=str)\n"
      "args = p.parse_args()\n"
      "if args.dist_backend == 'hccl' and args.device != 'cpu':\n    pass\n");
}

TEST(DeviceFlow, NanoGptStyleDeviceTypeLogic) {
  expect_migrates(
      "device = 'cuda'\nbackend = 'nccl'\n"
      "if ddp:\n    device = f'cuda:{ddp_local_rank}'\n"
      "device_type = 'cuda' if 'cuda' in device else 'cpu'\n"
      "use_fused = fused_available and device_type == 'cuda'\n",
      "device = 'npu'\nbackend = 'hccl'\n"
      "if ddp:\n    device = f'npu:{ddp_local_rank}'\n"
      "device_type = 'npu' if 'npu' in device else 'cpu'\n"
      "use_fused = fused_available and device_type == 'npu'\n");
}

TEST(DeviceFlow, AvailabilityGuardedChoiceIsRewrittenWhole) {
  expect_migrates("import torch\nself.device = 'cuda' if torch.cuda.is_available() else 'cpu'\n",
                  "import torch\nself.device = 'npu' if torch.npu.is_available() else 'cpu'\n");
  expect_migrates(
      "import torch.distributed as dist\ndist.init_process_group(backend='nccl' if dist.is_nccl_available() else 'gloo')\n",
      "import torch.distributed as dist\ndist.init_process_group(backend='hccl' if dist.is_hccl_available() else 'gloo')\n");
}

TEST(DeviceFlow, DefaultsGettersFormatsAndSets) {
  expect_migrates(
      "def f(x, device: str = 'cuda'):\n    return x\n"
      "g = lambda dev='cuda': dev\n"
      "d = getattr(args, 'device', 'cuda')\n"
      "e = os.environ.get('TORCH_DEVICE', 'cuda')\n"
      "loc = 'cuda:{}'.format(rank)\nm = 'cuda:%d' % rank\nn = 'cuda:' + str(rank)\n"
      "if x.device.type in ('cuda',):\n    pass\n"
      "if str(x.device).startswith('cuda'):\n    pass\n",
      "def f(x, device: str = 'npu'):\n    return x\n"
      "g = lambda dev='npu': dev\n"
      "d = getattr(args, 'device', 'npu')\n"
      "e = os.environ.get('TORCH_DEVICE', 'npu')\n"
      "loc = 'npu:{}'.format(rank)\nm = 'npu:%d' % rank\nn = 'npu:' + str(rank)\n"
      "if x.device.type in ('npu',):\n    pass\n"
      "if str(x.device).startswith('npu'):\n    pass\n");
}

TEST(DeviceFlow, NamesThatReachADeviceHoldDevices) {
  // `target` says nothing, but it reaches .to(); `t2` is the same value under another name.
  expect_migrates("target = 'cuda'\nt2 = target\nif t2 == 'cuda':\n    x = x.to(target)\n",
                  "target = 'npu'\nt2 = target\nif t2 == 'npu':\n    x = x.to(target)\n");
  // A positional argument of a function the file defines is known by the parameter's name.
  expect_migrates("def setup(dev):\n    return dev\nsetup('cuda')\n", "def setup(dev):\n    return dev\nsetup('npu')\n");
}

TEST(DeviceFlow, UnfollowedValuesAreReportedAndLeft) {
  std::string src = "mode = 'cuda'\nif impl == 'cuda':\n    pass\nlib = 'nccl'\n";
  auto fr = migrate_text(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_EQ(reported(fr, "device-string-unresolved"), (std::vector<std::string>{"1:8", "2:12"}));
  EXPECT_EQ(reported(fr, "nccl-string"), (std::vector<std::string>{"4:7"}));
}

TEST(DeviceFlow, CodeThatAlreadyHandlesNpuIsLeftAlone) {
  std::string src =
      "if device.type == 'cuda':\n    torch.cuda.synchronize()\nelif device.type == 'npu':\n    torch.npu.synchronize()\n"
      "backends = {'cuda': 'nccl', 'npu': 'hccl'}\n";
  auto fr = migrate_text(src);
  EXPECT_EQ(fr.rewritten.find("'cuda'"), 0u + src.find("'cuda'"));
  EXPECT_NE(fr.rewritten.find("backends = {'cuda': 'nccl', 'npu': 'hccl'}"), std::string::npos);
  // The table's two; the comparison heads a CUDA branch of a file that supports the NPU, which stays
  // whole (src/rules/safety/rewrite_safety_gpu_paths.cpp).
  EXPECT_EQ(reported(fr, "cuda-beside-npu").size(), 2u);
  EXPECT_EQ(fr.gpu_paths.size(), 1u);
  // A file that tests for the NPU already supports it: a CUDA test outside that chain is its GPU
  // path too, and stays (src/rules/safety/rewrite_safety_gpu_paths.cpp).
  const std::string other_src = "if device.type in ('cuda',):\n    scale()\nif device.type == 'cuda':\n    a()\nelif device.type == 'npu':\n    b()\n";
  auto other = migrate_text(other_src);
  EXPECT_EQ(other.rewritten, other_src);
  EXPECT_EQ(other.gpu_paths.size(), 1u);
  // Without the NPU branch the same test is rewritten.
  auto alone = migrate_text("if device.type in ('cuda',):\n    scale()\n");
  EXPECT_EQ(alone.rewritten.substr(0, 28), "if device.type in ('npu',):\n");
}

TEST(DeviceFlow, MessagesAndDocstringsAreNotValues) {
  std::string src = "'''cuda'''\nprint('cuda')\nlogger.info('cuda')\n";
  auto fr = migrate_text(src);
  EXPECT_EQ(fr.rewritten, src);
  EXPECT_TRUE(fr.leftovers.empty());
}

TEST(DeviceFlow, IntegerIndicesAreReportedWithTheExplicitSpelling) {
  auto fr = migrate_text("model = model.to(rank)\nx = torch.zeros(3, device=args.gpu)\ny = y.to(device)\n");
  auto idx = reported(fr, "device-index");
  EXPECT_EQ(idx, (std::vector<std::string>{"1:18", "2:27"}));
  for (const auto& f : fr.leftovers) {
    if (f.rule != "device-index" || f.line != 1) continue;
    EXPECT_NE(f.message.find("f\"npu:{rank}\""), std::string::npos);
  }
}

TEST(DeviceInvariant, CheckerFindsAComparisonFlippedWithoutItsProducer) {
  // The checker itself: a hand-made bad migration must be caught, a consistent one must pass.
  EXPECT_NE(device_invariant_violation("device = 'cuda'\nif device == 'npu':\n    pass\n",
                                       "device = 'cuda'\nif device == 'cuda':\n    pass\n"),
            "");
  EXPECT_EQ(device_invariant_violation("device = 'npu'\nif device == 'npu':\n    pass\n",
                                       "device = 'cuda'\nif device == 'cuda':\n    pass\n"),
            "");
  // `device..x = 'cuda'` (tokenizes, does not parse) stores nothing under `device`: fuzz_rewrite input.
  EXPECT_EQ(device_invariant_violation("device = 'npu'\nt = 'npu' in device\ndevice..x = 'cuda'\n",
                                       "device = 'cuda'\nt = 'cuda' in device\ndevice..x = 'cuda'\n"),
            "");
}
