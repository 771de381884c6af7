"""`python -m banjia.npu_sim`: the torch_npu kernels and fused optimizers of the stand-in torch_npu.

The programs in npu_sim_scripts/ compare each kernel (forward and gradients) with a reference
written in the program from torch_npu's documentation, and each fused optimizer with torch.optim or
the formula torch_npu's source implements; they print "ok NAME" per check.
"""
from __future__ import annotations

import pytest

pytest.importorskip("torch")

from npu_sim_harness import SCRIPTS, checks, simulate, summary  # noqa: E402

KERNEL_CHECKS = [
    *(f"attention {kind}{layout}" for layout in ("BSH", "SBH", "BSND", "BNSD") for kind in ("", "GQA ")),
    "attention MQA", "attention bfloat16", "attention float16 causal",
    "sparse_mode 0 mask (2, 2) with band", "sparse_mode 0 mask (1, 1) with band", "sparse_mode 0 mask (2, 1) with band",
    "sparse_mode 0 mask SS with band", "sparse_mode 0 uint8 mask, next_tockens < 0", "sparse_mode 1 (pre/next ignored)",
    "sparse_mode 2 Sq=4 Skv=7", "sparse_mode 3 Sq=4 Skv=7", "sparse_mode 2 Sq=7 Skv=4", "sparse_mode 3 Sq=7 Skv=4",
    "sparse_mode 4 band from the bottom-right", "literal sparse masks",
    "TND full", "TND GQA sparse_mode 2", "TND sparse_mode 3", "TND sparse_mode 4",
    "TND sparse_mode 0 SS mask with band",
    "dropout", "attention refusals", "outside autocast",
    "rms_norm last dimension", "rms_norm two dimensions", "rms_norm float16 with float32 gamma",
    "rotary_mul half BNSD", "rotary_mul interleave BSND", "rotary_mul half 3-d",
    "rotary_mul rotate matrix and refusals",
    "swiglu last dimension", "swiglu dim 1", "swiglu first half gated",
    "unknown attribute",
]


def test_kernels_match_their_documented_contracts() -> None:
    result = simulate(SCRIPTS / "kernels.py")
    assert result.returncode == 0, result.stderr
    assert checks(result.stdout) == KERNEL_CHECKS
    assert summary(result.stderr)[0] > 1000


OPTIMIZER_CHECKS = [
    "NpuFusedAdam defaults", "NpuFusedAdam weight_decay amsgrad groups", "NpuFusedAdamW defaults",
    "NpuFusedAdamW weight_decay amsgrad", "NpuFusedSGD momentum dampening weight_decay", "NpuFusedSGD nesterov groups",
    "NpuFusedSGD plain", "NpuFusedSGD float16", "NpuFusedLamb defaults", "NpuFusedLamb weight_decay",
    "NpuFusedLamb global grad norm", "NpuFusedLamb adam", "combined parameters", "closures", "clip_grad_norm_fused_",
    "unprovided optimizer",
]


def test_fused_optimizers_update_as_torch_optim_and_the_lamb_formula() -> None:
    result = simulate(SCRIPTS / "fused_optim.py")
    assert result.returncode == 0, result.stderr
    assert checks(result.stdout) == OPTIMIZER_CHECKS
