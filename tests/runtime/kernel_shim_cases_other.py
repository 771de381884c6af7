"""xformers_npu and apex_npu against the xformers and apex stand-ins: forward, backward, optimizer steps."""
from __future__ import annotations

import inspect

import pytest
import torch

from kernel_shim_harness import case, check, check_module, check_optimizer, close, import_paths, seeded

import_paths()
import apex_npu  # noqa: E402
import xformers_npu  # noqa: E402
from apex.contrib.layer_norm.layer_norm import FastLayerNorm, FastLayerNormFN  # noqa: E402  (the stand-ins)
from apex.normalization import fused_layer_norm as apex_norm  # noqa: E402
from apex.optimizers import FusedAdam, FusedLAMB, FusedSGD  # noqa: E402
from xformers.ops import SwiGLU, fmha  # noqa: E402
from xformers.ops.fmha import attn_bias  # noqa: E402


def _mea(device: torch.device, ref_bias: object, shim_bias: object, shapes: list[tuple[int, ...]],
         **kwargs: object) -> None:
    q, k, v = seeded(*shapes)
    check(lambda q, k, v: fmha.memory_efficient_attention(q, k, v, ref_bias, **kwargs),
          lambda q, k, v: xformers_npu.memory_efficient_attention(q, k, v, shim_bias, **kwargs), [q, k, v], device)


@case
def xformers_no_mask(device: torch.device) -> None:
    _mea(device, None, None, [(2, 6, 3, 16), (2, 9, 3, 16), (2, 9, 3, 8)], scale=0.25)


@case
def xformers_lower_triangular_top_left(device: torch.device) -> None:
    # 5 queries, 9 keys: top-left alignment lets query i see keys 0..i only
    _mea(device, attn_bias.LowerTriangularMask(), xformers_npu.LowerTriangularMask(),
         [(2, 5, 3, 16), (2, 9, 3, 16), (2, 9, 3, 16)])


@case
def xformers_lower_triangular_bottom_right(device: torch.device) -> None:
    _mea(device, attn_bias.LowerTriangularFromBottomRightMask(), xformers_npu.LowerTriangularFromBottomRightMask(),
         [(2, 5, 3, 16), (2, 9, 3, 16), (2, 9, 3, 16)])


@case
def xformers_block_diagonal(device: torch.device) -> None:
    ref = attn_bias.BlockDiagonalMask.from_seqlens([3, 5, 4], [4, 4, 7])
    got = xformers_npu.BlockDiagonalMask.from_seqlens([3, 5, 4], [4, 4, 7])
    _mea(device, ref, got, [(1, 12, 2, 16), (1, 15, 2, 16), (1, 15, 2, 16)])


@case
def xformers_block_diagonal_causal(device: torch.device) -> None:
    parts = seeded((1, 3, 2, 16), (2, 5, 2, 16), (1, 4, 2, 16))
    ref, x = attn_bias.BlockDiagonalMask.from_tensor_list(parts)
    got, x2 = xformers_npu.BlockDiagonalMask.from_tensor_list(parts)
    close(x2, x, "from_tensor_list")
    ref, got = ref.make_causal(), got.make_causal()
    assert type(got) is xformers_npu.BlockDiagonalCausalMask
    close(got.materialize((17, 17)), ref.materialize((17, 17)), "materialize")
    check(lambda q: fmha.memory_efficient_attention(q, q * 0.5, q, ref),
          lambda q: xformers_npu.memory_efficient_attention(q, q * 0.5, q, got), [x], device)
    out = xformers_npu.memory_efficient_attention(x.to(device), x.to(device), x.to(device), got)
    assert [t.shape[:2] for t in got.split(out)] == [(1, 3), (2, 5), (1, 4)]


@case
def xformers_three_and_five_dims(device: torch.device) -> None:
    _mea(device, None, None, [(2, 6, 16), (2, 6, 16), (2, 6, 16)])
    q, k, v = seeded((2, 6, 2, 3, 16), (2, 6, 2, 1, 16), (2, 6, 2, 1, 16))  # GQA: K/V expanded by the caller
    check(lambda q, k, v: fmha.memory_efficient_attention(q, k.expand(2, 6, 2, 3, 16), v.expand(2, 6, 2, 3, 16),
                                                          attn_bias.LowerTriangularMask()),
          lambda q, k, v: xformers_npu.memory_efficient_attention(q, k.expand(2, 6, 2, 3, 16),
                                                                  v.expand(2, 6, 2, 3, 16),
                                                                  xformers_npu.LowerTriangularMask()),
          [q, k, v], device)


@case
def xformers_refuses_other_biases(device: torch.device) -> None:
    q = torch.zeros(1, 4, 2, 16, device=device)
    for bias in (torch.zeros(1, 2, 4, 4, device=device), object()):
        with pytest.raises(NotImplementedError, match="xformers_npu"):
            xformers_npu.memory_efficient_attention(q, q, q, bias)
    with pytest.raises(NotImplementedError):
        xformers_npu.LowerTriangularMask().add_bias(torch.zeros(4, 4))
    assert xformers_npu.fmha.attn_bias.BlockDiagonalMask is xformers_npu.BlockDiagonalMask
    assert xformers_npu.fmha.memory_efficient_attention is xformers_npu.memory_efficient_attention


@case
def xformers_swiglu_packed_and_unpacked(device: torch.device) -> None:
    x, = seeded((3, 4, 8))
    torch.manual_seed(3)
    check_module(SwiGLU(8, 12, 6), xformers_npu.SwiGLU(8, 12, 6), [x], device)
    check_module(SwiGLU(8, 12, bias=False, _pack_weights=False),
                 xformers_npu.SwiGLU(8, 12, bias=False, _pack_weights=False), [x], device)


@case
def apex_fused_adam_adamw_mode(device: torch.device) -> None:
    check_optimizer(FusedAdam, apex_npu.FusedAdam, dict(lr=1e-2, weight_decay=0.1), device)


@case
def apex_fused_adam_l2_mode(device: torch.device) -> None:
    check_optimizer(FusedAdam, apex_npu.FusedAdam, dict(lr=1e-2, weight_decay=0.1, adam_w_mode=False), device)


@case
def apex_fused_adam_no_bias_correction_bf16(device: torch.device) -> None:
    check_optimizer(FusedAdam, apex_npu.FusedAdam, dict(lr=1e-2, bias_correction=False), device)
    check_optimizer(FusedAdam, apex_npu.FusedAdam, dict(lr=1e-2, weight_decay=0.01), device, dtype=torch.bfloat16)


@case
def apex_fused_lamb(device: torch.device) -> None:
    check_optimizer(FusedLAMB, apex_npu.FusedLAMB, dict(lr=1e-2), device)
    check_optimizer(FusedLAMB, apex_npu.FusedLAMB, dict(lr=1e-2, weight_decay=0.0, adam_w_mode=False,
                                                        max_grad_norm=100.0, use_nvlamb=True), device)


@case
def apex_fused_sgd_momentum(device: torch.device) -> None:
    check_optimizer(FusedSGD, apex_npu.FusedSGD, dict(lr=1e-2, momentum=0.9, weight_decay=1e-2), device)
    check_optimizer(FusedSGD, apex_npu.FusedSGD, dict(lr=1e-2, momentum=0.9, nesterov=True), device)
    check_optimizer(FusedSGD, apex_npu.FusedSGD, dict(lr=1e-2, momentum=0.5, dampening=0.1, weight_decay=1e-2,
                                                      wd_after_momentum=True), device)


@case
def apex_fused_layer_norm(device: torch.device) -> None:
    x, = seeded((3, 4, 6, 8))
    torch.manual_seed(5)
    ref, got = apex_norm.FusedLayerNorm([6, 8]), apex_npu.FusedLayerNorm([6, 8])
    with torch.no_grad():
        ref.weight.normal_(), ref.bias.normal_()
    check_module(ref, got, [x], device)
    check_module(apex_norm.FusedLayerNorm(8, elementwise_affine=False),
                 apex_npu.FusedLayerNorm(8, elementwise_affine=False), [x], device)
    w, b = seeded((8,), (8,), seed=2)
    check(lambda x, w, b: apex_norm.fused_layer_norm_affine(x, w, b, (8,), 1e-5),
          lambda x, w, b: apex_npu.fused_layer_norm_affine(x, w, b, (8,), 1e-5), [x, w, b], device)


@case
def apex_fused_rms_norm(device: torch.device) -> None:
    x, = seeded((3, 4, 6, 8))
    ref, got = apex_norm.FusedRMSNorm(8), apex_npu.FusedRMSNorm(8)
    with torch.no_grad():
        ref.weight.normal_()
    check_module(ref, got, [x], device)
    check_module(apex_norm.FusedRMSNorm([6, 8], elementwise_affine=False),
                 apex_npu.FusedRMSNorm([6, 8], elementwise_affine=False), [x], device)
    w, = seeded((8,), seed=2)
    check(lambda x, w: apex_norm.fused_rms_norm_affine(x, w, (8,), 1e-5),
          lambda x, w: apex_npu.fused_rms_norm_affine(x, w, (8,), 1e-5), [x, w], device)
    xb, = seeded((4, 16), dtype=torch.bfloat16)
    check(lambda x: apex_norm.FusedRMSNorm(16)(x), lambda x: apex_npu.FusedRMSNorm(16).to(device)(x), [xb], device)


@case
def apex_norm_functions_and_fast_layer_norm(device: torch.device) -> None:
    x, w, b = seeded((3, 5, 8), (8,), (8,), seed=4)
    check(lambda x, w, b: apex_norm.FusedLayerNormAffineFunction.apply(x, w, b, (8,), 1e-5),
          lambda x, w, b: apex_npu.FusedLayerNormAffineFunction.apply(x, w, b, (8,), 1e-5, False), [x, w, b], device)
    check(lambda x, w: apex_norm.FusedRMSNormAffineFunction.apply(x, w, (8,), 1e-6),
          lambda x, w: apex_npu.FusedRMSNormAffineFunction.apply(x, w, (8,), 1e-6), [x, w], device)
    # gpt-neox and Megatron look for memory_efficient in the forward's arguments before passing it
    assert "memory_efficient" in inspect.getfullargspec(apex_npu.FusedLayerNormAffineFunction.forward).args
    check(lambda x, w, b: FastLayerNormFN.apply(x, w, b, 1e-5), lambda x, w, b: apex_npu.FastLayerNormFN.apply(
        x, w, b, 1e-5), [x, w, b], device)
    # bfloat16 input with float32 weights: the output takes the weights' dtype (apex's otype = wtype)
    check(lambda x, w, b: FastLayerNormFN.apply(x, w, b, 1e-5), lambda x, w, b: apex_npu.FastLayerNormFN.apply(
        x, w, b, 1e-5), [x.bfloat16(), w, b], device)
    ref, got = FastLayerNorm(8), apex_npu.FastLayerNorm(8)
    with torch.no_grad():
        ref.weight.normal_()
        ref.bias.normal_()
    check_module(ref, got, [x], device)
