"""flash_attn_npu against the flash-attn stand-in: every function of the shim, forward and backward."""
from __future__ import annotations

import pytest
import torch

from kernel_shim_harness import case, check, check_module, close, import_paths, seeded

import_paths()
import flash_attn  # noqa: E402  (the stand-in)
import flash_attn_npu as shim  # noqa: E402
from flash_attn import bert_padding  # noqa: E402
from flash_attn.layers import rotary  # noqa: E402
from flash_attn.losses.cross_entropy import CrossEntropyLoss  # noqa: E402
from flash_attn.ops import rms_norm as ops_rms_norm  # noqa: E402
from flash_attn.modules import mha  # noqa: E402
from flash_attn.ops import activations  # noqa: E402
from flash_attn.ops.triton import cross_entropy as triton_cross_entropy  # noqa: E402
from flash_attn.ops.triton import layer_norm  # noqa: E402


def _dense(device: torch.device, sq: int, sk: int, h: int, hk: int, dtype: torch.dtype = torch.float32,
           **kwargs: object) -> None:
    q, k, v = seeded((2, sq, h, 16), (2, sk, hk, 16), (2, sk, hk, 16), dtype=dtype)
    check(lambda q, k, v: flash_attn.flash_attn_func(q, k, v, **kwargs),
          lambda q, k, v: shim.flash_attn_func(q, k, v, **kwargs), [q, k, v], device)


@case
def flash_causal_fewer_queries(device: torch.device) -> None:
    _dense(device, 5, 9, 4, 4, causal=True)  # bottom-right: the last query sees all 9 keys


@case
def flash_causal_more_queries(device: torch.device) -> None:
    _dense(device, 9, 5, 4, 4, causal=True)  # the first 4 queries see no key: 0


@case
def flash_causal_bfloat16(device: torch.device) -> None:
    _dense(device, 8, 8, 4, 4, dtype=torch.bfloat16, causal=True)


@case
def flash_gqa(device: torch.device) -> None:
    _dense(device, 8, 8, 6, 2, causal=True)


@case
def flash_mqa_not_causal(device: torch.device) -> None:
    _dense(device, 6, 10, 4, 1)


@case
def flash_window(device: torch.device) -> None:
    _dense(device, 10, 10, 4, 4, window_size=(3, 1))


@case
def flash_window_causal(device: torch.device) -> None:
    _dense(device, 6, 10, 4, 2, causal=True, window_size=(4, -1))


@case
def flash_window_more_queries(device: torch.device) -> None:
    _dense(device, 9, 5, 2, 2, window_size=(2, 1))  # queries 0..2 see no key: band with invalid rows


@case
def flash_window_left_unbounded(device: torch.device) -> None:
    _dense(device, 7, 7, 2, 2, window_size=(-1, 2))


@case
def flash_softmax_scale(device: torch.device) -> None:
    _dense(device, 7, 7, 2, 2, softmax_scale=0.3, causal=True)


@case
def flash_qkvpacked(device: torch.device) -> None:
    (qkv,) = seeded((2, 7, 3, 4, 16))
    check(lambda x: flash_attn.flash_attn_qkvpacked_func(x, causal=True),
          lambda x: shim.flash_attn_qkvpacked_func(x, causal=True), [qkv], device)


@case
def flash_kvpacked(device: torch.device) -> None:
    q, kv = seeded((2, 5, 4, 16), (2, 8, 2, 2, 16))
    check(lambda q, kv: flash_attn.flash_attn_kvpacked_func(q, kv, causal=True),
          lambda q, kv: shim.flash_attn_kvpacked_func(q, kv, causal=True), [q, kv], device)


CU_Q = torch.tensor([0, 3, 8, 12], dtype=torch.int32)
CU_K = torch.tensor([0, 5, 9, 15], dtype=torch.int32)


@case
def flash_varlen_three_sequences(device: torch.device) -> None:
    q, k, v = seeded((12, 6, 16), (15, 2, 16), (15, 2, 16))
    check(lambda q, k, v, cq, ck: flash_attn.flash_attn_varlen_func(q, k, v, cq, ck, 5, 6, causal=True),
          lambda q, k, v, cq, ck: shim.flash_attn_varlen_func(q, k, v, cq, ck, 5, 6, causal=True),
          [q, k, v, CU_Q, CU_K], device)


@case
def flash_varlen_window(device: torch.device) -> None:
    q, k, v = seeded((12, 4, 16), (15, 4, 16), (15, 4, 16))
    kw = dict(window_size=(2, 1), softmax_scale=0.2)
    check(lambda q, k, v, cq, ck: flash_attn.flash_attn_varlen_func(q, k, v, cq, ck, 5, 6, **kw),
          lambda q, k, v, cq, ck: shim.flash_attn_varlen_func(q, k, v, cq, ck, 5, 6, **kw),
          [q, k, v, CU_Q, CU_K], device)


@case
def flash_varlen_qkvpacked(device: torch.device) -> None:
    (qkv,) = seeded((12, 3, 4, 16))
    check(lambda x, cu: flash_attn.flash_attn_varlen_qkvpacked_func(x, cu, 5, causal=True),
          lambda x, cu: shim.flash_attn_varlen_qkvpacked_func(x, cu, 5, causal=True), [qkv, CU_Q], device)


@case
def flash_varlen_kvpacked(device: torch.device) -> None:
    q, kv = seeded((12, 4, 16), (15, 2, 2, 16))
    check(lambda q, kv, cq, ck: flash_attn.flash_attn_varlen_kvpacked_func(q, kv, cq, ck, 5, 6),
          lambda q, kv, cq, ck: shim.flash_attn_varlen_kvpacked_func(q, kv, cq, ck, 5, 6),
          [q, kv, CU_Q, CU_K], device)


@case
def flash_refuses_what_npu_cannot_do(device: torch.device) -> None:
    q, k, v = (t.to(device) for t in seeded((1, 4, 2, 16), (1, 4, 2, 16), (1, 4, 2, 16)))
    for kwargs in (dict(softcap=30.0), dict(alibi_slopes=torch.ones(2, device=device)),
                   dict(return_attn_probs=True)):
        with pytest.raises(NotImplementedError, match="flash_attn_npu"):
            shim.flash_attn_func(q, k, v, **kwargs)
    cu = torch.tensor([0, 4], dtype=torch.int32, device=device)
    with pytest.raises(NotImplementedError, match="block_table"):
        shim.flash_attn_varlen_func(q[0], k[0], v[0], cu, cu, 4, 4, block_table=cu)
    with pytest.raises(NotImplementedError, match="process_group"):
        shim.CrossEntropyLoss(process_group=object())


@case
def flash_pad_unpad_round_trip(device: torch.device) -> None:
    (hidden,) = seeded((3, 6, 5))
    mask = torch.tensor([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 0]])
    ref, got = bert_padding.unpad_input(hidden, mask), shim.unpad_input(hidden.to(device), mask.to(device))
    assert len(got) == 5  # flash-attn >= 2.7.0
    close(got, ref, "unpad_input")

    def round_trip(module, h, m):  # unpad, scale, pad back: gradients flow through both directions
        x, idx, *_ = module.unpad_input(h, m)
        return module.pad_input(x * 2.0, idx, 3, 6), module.index_first_axis(h.reshape(18, 5), idx)

    check(lambda h, m: round_trip(bert_padding, h, m), lambda h, m: round_trip(shim, h, m), [hidden, mask], device)


def _tables(seqlen: int, rotary_dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    freqs = torch.outer(torch.arange(seqlen, dtype=torch.float32),
                        1.0 / 10000 ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    return freqs.cos(), freqs.sin()


def _rotary_case(device: torch.device, interleaved: bool, rotary_dim: int, **kwargs: object) -> None:
    x, = seeded((2, 6, 3, 16))
    cos, sin = _tables(10, rotary_dim)
    check(lambda x: rotary.apply_rotary_emb(x, cos, sin, interleaved, **kwargs),
          lambda x: shim.apply_rotary_emb(x, cos.to(device), sin.to(device), interleaved, **kwargs), [x], device)


@case
def rotary_halves(device: torch.device) -> None:
    _rotary_case(device, False, 16)


@case
def rotary_interleaved(device: torch.device) -> None:
    _rotary_case(device, True, 16)


@case
def rotary_partial_dim_with_offsets(device: torch.device) -> None:
    _rotary_case(device, False, 8, seqlen_offsets=3)
    _rotary_case(device, True, 8, seqlen_offsets=torch.tensor([0, 4]))


@case
def rotary_varlen_inplace(device: torch.device) -> None:
    x, = seeded((12, 2, 16))
    cos, sin = _tables(8, 8)
    cu = torch.tensor([0, 3, 8, 12], dtype=torch.int32)
    check(lambda x, cu: rotary.apply_rotary_emb(x * 1.0, cos, sin, True, True, 0, cu, 5),
          lambda x, cu: shim.apply_rotary_emb(x * 1.0, cos.to(device), sin.to(device), True, True, 0, cu, 5),
          [x, cu], device)


@case
def rotary_embedding_module(device: torch.device) -> None:
    qkv, q, kv, packed = seeded((2, 5, 3, 2, 16), (2, 5, 2, 16), (2, 5, 2, 2, 16), (2, 5, 4 + 2 * 2, 16))
    for kwargs in (dict(), dict(interleaved=True), dict(scale_base=512)):
        ref, got = rotary.RotaryEmbedding(16, **kwargs), shim.RotaryEmbedding(16, **kwargs).to(device)
        check(lambda x: ref(x * 1.0), lambda x: got(x * 1.0), [qkv], device)
        check(lambda q, kv: ref(q * 1.0, kv * 1.0, seqlen_offset=2),
              lambda q, kv: got(q * 1.0, kv * 1.0, seqlen_offset=2), [q, kv], device)
        check(lambda x: ref(x * 1.0, num_heads_q=4), lambda x: got(x * 1.0, num_heads_q=4), [packed], device)


@case
def rms_norm_function_and_modules(device: torch.device) -> None:
    x, w = seeded((3, 5, 32), (32,))
    check(lambda x, w: ops_rms_norm.rms_norm(x, w, 1e-5), lambda x, w: shim.rms_norm(x, w, 1e-5), [x, w], device)
    check_module(layer_norm.RMSNorm(32, eps=1e-6), shim.RMSNorm(32, eps=1e-6), [x], device)
    check_module(ops_rms_norm.RMSNorm(32), shim.RMSNorm(32), [x], device)
    x16, w16 = seeded((4, 64), (64,), dtype=torch.bfloat16)
    check(lambda x, w: layer_norm.rms_norm_fn(x, w, None), lambda x, w: shim.rms_norm_fn(x, w, None), [x16, w16],
          device)


@case
def norm_fn_residual_prenorm(device: torch.device) -> None:
    x, res, w, b, x1, w1 = seeded((3, 5, 32), (3, 5, 32), (32,), (32,), (3, 5, 32), (32,))
    kw = dict(prenorm=True, residual_in_fp32=True, eps=1e-5)
    for fn in ("rms_norm_fn", "layer_norm_fn"):
        check(lambda x, r, w: getattr(layer_norm, fn)(x, w, None, residual=r, **kw),
              lambda x, r, w: getattr(shim, fn)(x, w, None, residual=r, **kw), [x, res, w], device)
        check(lambda x, w, b: getattr(layer_norm, fn)(x, w, b, rowscale=w[:5].detach(), eps=1e-5),
              lambda x, w, b: getattr(shim, fn)(x, w, b, rowscale=w[:5].detach(), eps=1e-5), [x, w, b], device)
    kw2 = dict(x1=x1, weight1=w1, bias1=None, zero_centered_weight=True, prenorm=True, out_dtype=torch.bfloat16)
    check(lambda x, w, b: layer_norm.layer_norm_fn(x, w, b, **kw2),
          lambda x, w, b: shim.layer_norm_fn(x, w, b, **{**kw2, "x1": x1.to(device), "weight1": w1.to(device)}),
          [x, w, b], device)


@case
def cross_entropy(device: torch.device) -> None:
    logits, = seeded((6, 11))
    target = torch.tensor([3, -100, 0, 10, -100, 5])
    for kwargs in (dict(), dict(label_smoothing=0.1), dict(reduction="none", lse_square_scale=1e-3),
                   dict(return_z_loss=True, lse_square_scale=1e-2), dict(reduction="sum", logit_scale=0.5,
                                                                        ignore_index=3, label_smoothing=0.2)):
        if kwargs.get("ignore_index") == 3:
            target = torch.tensor([3, 1, 0, 10, 3, 5])
        ref, got = CrossEntropyLoss(**kwargs), shim.CrossEntropyLoss(**kwargs)
        check(lambda x, t: ref(x, t), lambda x, t: got(x, t), [logits, target], device)


@case
def cross_entropy_loss_function(device: torch.device) -> None:
    logits, = seeded((6, 11))
    target = torch.tensor([3, -100, 0, 10, -100, 5])
    for kwargs in (dict(), dict(label_smoothing=0.1, lse_square_scale=1e-3), dict(logit_scale=0.5, ignore_index=0)):
        if kwargs.get("ignore_index") == 0:
            target = torch.tensor([3, 1, 0, 10, 0, 5])
        check(lambda x, t: triton_cross_entropy.cross_entropy_loss(x, t, **kwargs),
              lambda x, t: shim.cross_entropy_loss(x, t, **kwargs), [logits, target], device)


@case
def swiglu_and_einops_reexports(device: torch.device) -> None:
    x, y = seeded((3, 8), (3, 8))
    check(activations.swiglu, shim.swiglu, [x, y], device)
    check(activations.swiglu, shim.swiglu, [x.bfloat16(), y.bfloat16()], device)
    h, = seeded((2, 5, 6))
    check(lambda t: bert_padding.rearrange(t, "b s d -> (b s) d"),
          lambda t: shim.bert_padding.rearrange(t, "b s d -> (b s) d"), [h], device)
    check(lambda t: bert_padding.repeat(t, "b s d -> b s r d", r=2), lambda t: shim.repeat(t, "b s d -> b s r d", r=2),
          [h], device)
    assert mha.flash_attn_varlen_kvpacked_func is flash_attn.flash_attn_varlen_kvpacked_func  # the stand-in's re-export
