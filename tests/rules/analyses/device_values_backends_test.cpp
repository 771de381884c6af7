// Backends per device ("cpu:gloo,cuda:nccl", torch.distributed.Backend's form) follow the backend
// values: the CUDA device and NCCL change together. Expected texts are written by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "migrate/python_rewriter.h"
#include "migrate/rewrite_helpers.h"
#include "rules/analyses/device_values.h"
#include "rules/core/catalog.h"

namespace {

using banjia::rules::RuleCatalog;

banjia::migrate::FileRewrite rw(const std::string& src, std::string_view target = banjia::rules::kTargetNpu) {
  return banjia::testing::rewrite_file(src, target);
}

}  // namespace

TEST(BackendPerDevice, TheItemsAreRecognised) {
  using banjia::rules::composite_backend_items;
  EXPECT_EQ(composite_backend_items("cpu:gloo,cuda:nccl").size(), 2u);
  EXPECT_EQ(composite_backend_items("cuda:nccl").size(), 1u);
  EXPECT_TRUE(composite_backend_items("cuda:0").empty());     // a device with an index
  EXPECT_TRUE(composite_backend_items("cuda:nccl,").empty()); // an empty item
  EXPECT_TRUE(composite_backend_items("nccl").empty());
  EXPECT_TRUE(composite_backend_items("tpu:xla").empty());
}

TEST(BackendPerDevice, DevicesAndBackendsChangeTogether) {
  const std::string src =
      "import torch.distributed as dist\n"
      "BACKEND = 'cpu:gloo,cuda:nccl'\n"
      "dist.init_process_group(backend=BACKEND)\n"
      "dist.new_group(ranks, backend='cuda:nccl,cpu:gloo')\n";
  const std::string want =
      "import torch.distributed as dist\n"
      "BACKEND = 'cpu:gloo,npu:hccl'\n"
      "dist.init_process_group(backend=BACKEND)\n"
      "dist.new_group(ranks, backend='npu:hccl,cpu:gloo')\n";
  EXPECT_EQ(rw(src).rewritten, want);
  // device-agnostic code has no spelling of it: reported, unchanged
  const auto acc = rw(src, banjia::rules::kTargetAccelerator);
  EXPECT_EQ(acc.rewritten, src);
  EXPECT_TRUE(std::any_of(acc.leftovers.begin(), acc.leftovers.end(), [](const banjia::Finding& f) {
    return f.rule == "nccl-backend" && f.message.find("backend per device") != std::string::npos;
  }));
}

