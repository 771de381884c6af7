// Direct torch.ops.aten calls judged against the newest data/ops set (rules/analyses/aten_ops.h).
#include "rules/analyses/aten_ops.h"

#include <gtest/gtest.h>

using banjia::rules::aten_op_without_npu_kernel;

TEST(AtenOps, OpsWithoutKernelOrCompositeAreReported) {
  auto m = aten_op_without_npu_kernel("torch.ops.aten.linalg_matrix_exp");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rfind("aten::linalg_matrix_exp has no NPU kernel in torch_npu master (torch line v2.13)", 0), 0u) << *m;
  auto d = aten_op_without_npu_kernel("torch.ops.aten.huber_loss.default");
  ASSERT_TRUE(d);
  EXPECT_NE(d->find("aten::huber_loss has"), std::string::npos) << *d;
}

TEST(AtenOps, KernelsCompositesAndNonOpsAreNot) {
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten.mm"));
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten.add.Tensor"));  // the pinned overload has a kernel
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten.add_.Tensor"));
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten.linear"));      // composite
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten.linear.default"));
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten"));
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.npu.npu_rotary_mul"));
}

TEST(AtenOps, APinnedOverloadIsJudgedAlone) {
  // abs has kernels for abs and abs.out, but no overload named abs.Scalar exists with one.
  EXPECT_FALSE(aten_op_without_npu_kernel("torch.ops.aten.abs.out"));
  EXPECT_TRUE(aten_op_without_npu_kernel("torch.ops.aten.abs.Scalar"));
}
