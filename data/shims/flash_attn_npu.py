"""flash_attn_npu: flash-attn's Python API on Ascend NPUs (torch_npu) and on any other torch device.

banjia migrate wrote this file into the migrated program and pointed the program's flash_attn imports
here. The program's owner owns it from now on: read it, edit it, check it in. It imports nothing of banjia.

Each name keeps flash-attn's signature and semantics (flash-attn 2.8, Dao-AILab/flash-attention:
flash_attn/flash_attn_interface.py, bert_padding.py, layers/rotary.py, ops/rms_norm.py,
ops/triton/layer_norm.py, ops/triton/cross_entropy.py, ops/activations.py, losses/cross_entropy.py). On
tensors of an `npu` device it calls torch_npu:

- attention -> torch_npu.npu_fusion_attention, layout BSND (varlen: TND, actual_seq_qlen/actual_seq_kvlen =
  cu_seqlens[1:] as lists). flash-attn >= 2.1 aligns `causal` to the bottom-right corner: sparse_mode=3
  with the compressed 2048x2048 triu(diagonal=1) mask. A window (left, right) is the band of sparse_mode=4,
  pre_tockens=left, next_tockens=right, also counted from the bottom-right corner. scale = softmax_scale or
  1/sqrt(headdim); keep_prob = 1 - dropout_p; K/V with fewer heads (GQA/MQA) go as they are. Sources:
  torch_npu npu_fusion_attention docs (Ascend/op-plugin), huggingface/transformers
  src/transformers/integrations/npu_flash_attention.py.
- rms_norm, RMSNorm, rms_norm_fn -> torch_npu.npu_rms_norm (the normalization; residual, dropout and bias
  stay torch ops). apply_rotary_emb, RotaryEmbedding -> torch_npu.npu_rotary_mul ("half", or
  rotary_mode="interleave" for interleaved=True).
- flash_attn_with_kvcache: the new keys and values written into the caches with torch indexing, then each
  row's cache as one sequence of the varlen (TND) attention above.
- layer_norm_fn, CrossEntropyLoss, cross_entropy_loss, swiglu, pad_input, unpad_input, index_first_axis:
  torch ops, which torch_npu runs natively. rearrange and repeat are einops' (bert_padding re-exports them).
On any other device everything computes with plain torch, so the file also serves device-agnostic programs.

Raises NotImplementedError on every device (a program then behaves the same on the CPU as on the NPU):
alibi_slopes, softcap != 0, return_attn_probs=True, block_table (paged KV cache),
flash_attn_with_kvcache(return_softmax_lse=True) and cross entropy with process_group=.... `deterministic` and `inplace_backward` are accepted and change nothing.

unpad_input returns 5 values, as flash-attn >= 2.7.0 does: (hidden_states, indices, cu_seqlens,
max_seqlen_in_batch, seqused). Code written for flash-attn <= 2.6 unpacks 4: take `[:4]`.
"""
from __future__ import annotations

import math
import types
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F

__all__ = [
    "flash_attn_func", "flash_attn_varlen_func", "flash_attn_qkvpacked_func", "flash_attn_kvpacked_func",
    "flash_attn_varlen_qkvpacked_func", "flash_attn_varlen_kvpacked_func", "pad_input", "unpad_input",
    "index_first_axis", "apply_rotary_emb", "RotaryEmbedding", "rms_norm", "RMSNorm", "rms_norm_fn",
    "layer_norm_fn", "CrossEntropyLoss", "bert_padding", "flash_attn_with_kvcache", "rearrange", "repeat",
    "cross_entropy_loss", "swiglu",
]

Tensor = torch.Tensor
_UNBOUNDED = 2147483647  # npu_fusion_attention's default pre_tockens/next_tockens: no limit
_MASKS: Dict[torch.device, Tensor] = {}  # the compressed causal mask, once per device


def _torch_npu() -> Any:
    import torch_npu  # imported only for npu tensors: the module also runs where there is no torch_npu
    return torch_npu


def _on_npu(t: Tensor) -> bool:
    return t.device.type == "npu"


# ---------------------------------------------------------------- attention


def _refuse(softcap: float, alibi_slopes: Optional[Tensor], return_attn_probs: bool) -> None:
    if softcap != 0.0:
        raise NotImplementedError("flash_attn_npu: softcap != 0 is not available: "
                                  "torch_npu.npu_fusion_attention has no logit soft-capping")
    if alibi_slopes is not None:
        raise NotImplementedError("flash_attn_npu: alibi_slopes is not available: npu_fusion_attention takes "
                                  "ALiBi only as a materialized `pse` bias, which this shim does not build")
    if return_attn_probs:
        raise NotImplementedError("flash_attn_npu: return_attn_probs=True is not available: "
                                  "npu_fusion_attention returns no attention probabilities")


def _window(causal: bool, window_size: Sequence[int]) -> Tuple[Optional[int], Optional[int]]:
    """(left, right): how far before/after its bottom-right-aligned diagonal a query sees; None = no limit.
    As flash-attn's C++ front end: a negative size is unlimited, causal makes right 0."""
    left = None if window_size[0] < 0 else int(window_size[0])
    right = 0 if causal else (None if window_size[1] < 0 else int(window_size[1]))
    return left, right


def _allowed(sq: int, sk: int, left: Optional[int], right: Optional[int], device: torch.device) -> Optional[Tensor]:
    """(sq, sk) bool: key j visible to query i; None when every key is."""
    if left is None and right is None:
        return None
    diag = torch.arange(sq, device=device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=device)[None, :]
    ok = torch.ones(sq, sk, dtype=torch.bool, device=device)
    if left is not None:
        ok &= j >= diag - left
    if right is not None:
        ok &= j <= diag + right
    return ok


def _attend_torch(q: Tensor, k: Tensor, v: Tensor, scale: float, dropout_p: float,
                  allowed: Optional[Tensor]) -> Tensor:
    """q (B, Sq, H, D), k/v (B, Sk, Hk, D): flash-attn's result with plain torch."""
    if k.shape[2] != q.shape[2]:  # GQA: query head i uses key head i // (H / Hk), as flash-attn
        k = k.repeat_interleave(q.shape[2] // k.shape[2], dim=2)
        v = v.repeat_interleave(q.shape[2] // v.shape[2], dim=2)
    empty = None
    if allowed is not None:
        # A query that sees no key gives 0 in flash-attn; give SDPA a finite row there, zero it after.
        empty = ~allowed.any(-1, keepdim=True)
        allowed = allowed | empty
    out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                         attn_mask=allowed, dropout_p=dropout_p, scale=scale).transpose(1, 2)
    if empty is not None and bool(empty.any()):
        out = out.masked_fill(empty.view(1, -1, 1, 1), 0.0)
    return out


def _npu_mask(left: Optional[int], right: Optional[int], shapes: List[Tuple[int, int]],
              device: torch.device) -> Dict[str, Any]:
    """npu_fusion_attention's sparse arguments for the window (shapes: (sq, sk) per sequence)."""
    if left is None and right is None:
        return {}
    if device not in _MASKS:
        _MASKS[device] = torch.triu(torch.ones(2048, 2048, dtype=torch.bool, device=device), diagonal=1)
    args: Dict[str, Any] = {"atten_mask": _MASKS[device]}
    if left is None and right == 0:
        args["sparse_mode"] = 3  # rightDownCausal: flash-attn's causal
    else:
        args.update(sparse_mode=4, pre_tockens=_UNBOUNDED if left is None else left,
                    next_tockens=_UNBOUNDED if right is None else right)
    if right is not None and any(sq > sk + right for sq, sk in shapes):
        args["inner_precise"] = 2  # rows that see no key ("invalid rows"): flash-attn gives them 0
    return args


def _dense(q: Tensor, k: Tensor, v: Tensor, dropout_p: float, softmax_scale: Optional[float], causal: bool,
           window_size: Sequence[int], softcap: float, alibi_slopes: Optional[Tensor],
           return_attn_probs: bool) -> Tensor:
    _refuse(softcap, alibi_slopes, return_attn_probs)
    scale = q.shape[-1] ** -0.5 if softmax_scale is None else softmax_scale
    left, right = _window(causal, window_size)
    sq, sk = q.shape[1], k.shape[1]
    if _on_npu(q):
        mask = _npu_mask(left, right, [(sq, sk)], q.device)
        torch_npu = _torch_npu()
        out: Tensor = torch_npu.npu_fusion_attention(q, k, v, q.shape[2], "BSND", scale=scale,
                                                     keep_prob=1.0 - dropout_p, **mask)[0]
        return out
    return _attend_torch(q, k, v, scale, dropout_p, _allowed(sq, sk, left, right, q.device))


def _varlen(q: Tensor, k: Tensor, v: Tensor, cu_seqlens_q: Tensor, cu_seqlens_k: Tensor, dropout_p: float,
            softmax_scale: Optional[float], causal: bool, window_size: Sequence[int], softcap: float,
            alibi_slopes: Optional[Tensor], return_attn_probs: bool, block_table: Optional[Tensor]) -> Tensor:
    _refuse(softcap, alibi_slopes, return_attn_probs)
    if block_table is not None:
        raise NotImplementedError("flash_attn_npu: block_table (paged KV cache) is not available: "
                                  "npu_fusion_attention takes contiguous K/V")
    scale = q.shape[-1] ** -0.5 if softmax_scale is None else softmax_scale
    left, right = _window(causal, window_size)
    cq, ck = [int(c) for c in cu_seqlens_q.tolist()], [int(c) for c in cu_seqlens_k.tolist()]
    shapes = [(cq[i + 1] - cq[i], ck[i + 1] - ck[i]) for i in range(len(cq) - 1)]
    if _on_npu(q):
        mask = _npu_mask(left, right, shapes, q.device)
        torch_npu = _torch_npu()
        out: Tensor = torch_npu.npu_fusion_attention(q, k, v, q.shape[1], "TND", scale=scale,
                                                     keep_prob=1.0 - dropout_p, actual_seq_qlen=cq[1:],
                                                     actual_seq_kvlen=ck[1:], **mask)[0]
        return out
    outs = [_attend_torch(q[None, cq[i]:cq[i + 1]], k[None, ck[i]:ck[i + 1]], v[None, ck[i]:ck[i + 1]], scale,
                          dropout_p, _allowed(sq, sk, left, right, q.device))[0]
            for i, (sq, sk) in enumerate(shapes)]
    if q.shape[0] > cq[-1]:  # tokens after the last sequence: flash-attn leaves them undefined
        outs.append(q.new_zeros(q.shape[0] - cq[-1], q.shape[1], v.shape[-1]))
    return torch.cat(outs)


def flash_attn_func(q: Tensor, k: Tensor, v: Tensor, dropout_p: float = 0.0, softmax_scale: Optional[float] = None,
                    causal: bool = False, window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                    alibi_slopes: Optional[Tensor] = None, deterministic: bool = False,
                    return_attn_probs: bool = False) -> Tensor:
    """q (batch, seqlen_q, nheads, headdim), k/v (batch, seqlen_k, nheads_k, headdim) -> like q."""
    return _dense(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, return_attn_probs)


def flash_attn_qkvpacked_func(qkv: Tensor, dropout_p: float = 0.0, softmax_scale: Optional[float] = None,
                              causal: bool = False, window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                              alibi_slopes: Optional[Tensor] = None, deterministic: bool = False,
                              return_attn_probs: bool = False) -> Tensor:
    """qkv (batch, seqlen, 3, nheads, headdim)."""
    q, k, v = qkv.unbind(2)
    return _dense(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, return_attn_probs)


def flash_attn_kvpacked_func(q: Tensor, kv: Tensor, dropout_p: float = 0.0, softmax_scale: Optional[float] = None,
                             causal: bool = False, window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                             alibi_slopes: Optional[Tensor] = None, deterministic: bool = False,
                             return_attn_probs: bool = False) -> Tensor:
    """q (batch, seqlen_q, nheads, headdim), kv (batch, seqlen_k, 2, nheads_k, headdim)."""
    k, v = kv.unbind(2)
    return _dense(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, return_attn_probs)


def flash_attn_varlen_func(q: Tensor, k: Tensor, v: Tensor, cu_seqlens_q: Tensor, cu_seqlens_k: Tensor,
                           max_seqlen_q: int, max_seqlen_k: int, dropout_p: float = 0.0,
                           softmax_scale: Optional[float] = None, causal: bool = False,
                           window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                           alibi_slopes: Optional[Tensor] = None, deterministic: bool = False,
                           return_attn_probs: bool = False, block_table: Optional[Tensor] = None) -> Tensor:
    """q (total_q, nheads, headdim), k/v (total_k, nheads_k, headdim); sequence b is
    cu_seqlens[b]:cu_seqlens[b + 1]. max_seqlen_* are not needed by either path."""
    return _varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, dropout_p, softmax_scale, causal, window_size, softcap,
                   alibi_slopes, return_attn_probs, block_table)


def flash_attn_varlen_qkvpacked_func(qkv: Tensor, cu_seqlens: Tensor, max_seqlen: int, dropout_p: float = 0.0,
                                     softmax_scale: Optional[float] = None, causal: bool = False,
                                     window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                                     alibi_slopes: Optional[Tensor] = None, deterministic: bool = False,
                                     return_attn_probs: bool = False) -> Tensor:
    """qkv (total, 3, nheads, headdim)."""
    q, k, v = qkv.unbind(1)
    return _varlen(q, k, v, cu_seqlens, cu_seqlens, dropout_p, softmax_scale, causal, window_size, softcap,
                   alibi_slopes, return_attn_probs, None)


def flash_attn_varlen_kvpacked_func(q: Tensor, kv: Tensor, cu_seqlens_q: Tensor, cu_seqlens_k: Tensor,
                                    max_seqlen_q: int, max_seqlen_k: int, dropout_p: float = 0.0,
                                    softmax_scale: Optional[float] = None, causal: bool = False,
                                    window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                                    alibi_slopes: Optional[Tensor] = None, deterministic: bool = False,
                                    return_attn_probs: bool = False) -> Tensor:
    """q (total_q, nheads, headdim), kv (total_k, 2, nheads_k, headdim)."""
    k, v = kv.unbind(1)
    return _varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, dropout_p, softmax_scale, causal, window_size, softcap,
                   alibi_slopes, return_attn_probs, None)


def flash_attn_with_kvcache(q: Tensor, k_cache: Tensor, v_cache: Tensor, k: Optional[Tensor] = None,
                            v: Optional[Tensor] = None, rotary_cos: Optional[Tensor] = None,
                            rotary_sin: Optional[Tensor] = None, cache_seqlens: Union[int, Tensor, None] = None,
                            cache_batch_idx: Optional[Tensor] = None, cache_leftpad: Optional[Tensor] = None,
                            block_table: Optional[Tensor] = None, softmax_scale: Optional[float] = None,
                            causal: bool = False, window_size: Sequence[int] = (-1, -1), softcap: float = 0.0,
                            rotary_interleaved: bool = True, alibi_slopes: Optional[Tensor] = None,
                            num_splits: int = 0, return_softmax_lse: bool = False) -> Tensor:
    """q (batch, seqlen, nheads, headdim), k_cache/v_cache (batch_cache, seqlen_cache, nheads_k, headdim),
    k/v (batch, seqlen_new, nheads_k, headdim) written into the caches in place at cache_seqlens (after
    rotating k, and q, by rotary_cos/sin at those positions); then q attends to each row's cache from
    cache_leftpad to cache_seqlens + seqlen_new, causal and windows aligned to its bottom-right corner."""
    if return_softmax_lse:
        raise NotImplementedError("flash_attn_npu: flash_attn_with_kvcache(return_softmax_lse=True) is not available")
    if block_table is not None:
        raise NotImplementedError("flash_attn_npu: block_table (paged KV cache) is not available: "
                                  "npu_fusion_attention takes contiguous K/V")
    batch, sq = q.shape[0], q.shape[1]
    rows = (torch.arange(batch, device=q.device) if cache_batch_idx is None
            else cache_batch_idx.to(device=q.device, dtype=torch.long))
    if cache_seqlens is None:
        lens = torch.full((batch,), k_cache.shape[1] if k is None else 0, dtype=torch.long, device=q.device)
    else:
        lens = torch.as_tensor(cache_seqlens, device=q.device).to(torch.long).expand(batch)
    if rotary_cos is not None and rotary_sin is not None:
        # q's positions: one per token where it attends causally or locally, else all at cache_seqlens
        per_token = causal or window_size[0] >= 0 or window_size[1] >= 0
        q = (apply_rotary_emb(q, rotary_cos, rotary_sin, rotary_interleaved, seqlen_offsets=lens) if per_token
             else torch.cat([apply_rotary_emb(q[:, i:i + 1], rotary_cos, rotary_sin, rotary_interleaved,
                                              seqlen_offsets=lens) for i in range(sq)], dim=1))
        if k is not None:
            k = apply_rotary_emb(k, rotary_cos, rotary_sin, rotary_interleaved, seqlen_offsets=lens)
    new = 0
    if k is not None and v is not None:
        new = k.shape[1]
        slots = lens[:, None] + torch.arange(new, device=q.device)[None, :]
        k_cache[rows[:, None], slots] = k.to(k_cache.dtype)
        v_cache[rows[:, None], slots] = v.to(v_cache.dtype)
    starts = ([0] * batch if cache_leftpad is None else [int(x) for x in cache_leftpad.tolist()])
    ends = [int(x) + new for x in lens.tolist()]
    picked = rows.tolist()
    keys = torch.cat([k_cache[r, a:b] for r, a, b in zip(picked, starts, ends)])
    values = torch.cat([v_cache[r, a:b] for r, a, b in zip(picked, starts, ends)])
    cu_q = torch.arange(0, (batch + 1) * sq, sq, dtype=torch.int32, device=q.device)
    cu_k = torch.tensor([0] + [b - a for a, b in zip(starts, ends)], device=q.device).cumsum(0).to(torch.int32)
    out = _varlen(q.reshape(batch * sq, *q.shape[2:]), keys, values, cu_q, cu_k, 0.0, softmax_scale, causal,
                  window_size, softcap, alibi_slopes, False, None)
    return out.reshape(batch, sq, *out.shape[1:])


# ---------------------------------------------------------------- bert_padding


def index_first_axis(input: Tensor, indices: Tensor) -> Tensor:
    """input[indices] along the first axis (flash-attn's IndexFirstAxis, differentiable)."""
    return input[indices]


def unpad_input(hidden_states: Tensor, attention_mask: Tensor,
                unused_mask: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor, int, Tensor]:
    """(batch, seqlen, ...) -> (total_nnz, ...), indices, cu_seqlens (int32), max_seqlen_in_batch, seqused."""
    keep = attention_mask if unused_mask is None else attention_mask + unused_mask  # unused slots stay packed
    lengths = keep.sum(dim=-1, dtype=torch.int32)
    cu_seqlens = torch.zeros(lengths.numel() + 1, dtype=torch.int32, device=lengths.device)
    cu_seqlens[1:] = lengths.cumsum(0)
    indices = keep.flatten().nonzero().flatten()
    rows = index_first_axis(hidden_states.flatten(0, 1), indices)
    return rows, indices, cu_seqlens, int(lengths.max()), attention_mask.sum(dim=-1, dtype=torch.int32)


def pad_input(hidden_states: Tensor, indices: Tensor, batch: int, seqlen: int) -> Tensor:
    """(total_nnz, ...) -> (batch, seqlen, ...), zeros where no token was."""
    output = hidden_states.new_zeros(batch * seqlen, *hidden_states.shape[1:])
    return output.index_put((indices,), hidden_states).reshape(batch, seqlen, *hidden_states.shape[1:])


def rearrange(tensor: Any, pattern: str, **axes_lengths: Any) -> Any:
    """einops.rearrange, which flash_attn.bert_padding re-exports (flash-attn depends on einops)."""
    import einops  # imported when used: the rest of the module does not need einops
    return einops.rearrange(tensor, pattern, **axes_lengths)


def repeat(tensor: Any, pattern: str, **axes_lengths: Any) -> Any:
    """einops.repeat, which flash_attn.bert_padding re-exports."""
    import einops
    return einops.repeat(tensor, pattern, **axes_lengths)


# ---------------------------------------------------------------- rotary


def _rotary_tables(cos: Tensor, sin: Tensor, positions: Tensor, interleaved: bool) -> Tuple[Tensor, Tensor]:
    """float32 (..., rotary_dim) cos/sin at `positions`; positions past the table leave x unchanged, as
    flash-attn's kernel (cos 1, sin 0)."""
    inside = (positions < cos.shape[0])[..., None]
    idx = positions.clamp(max=cos.shape[0] - 1)
    c = torch.where(inside, cos[idx].float(), 1.0)
    s = torch.where(inside, sin[idx].float(), 0.0)
    if interleaved:
        return c.repeat_interleave(2, dim=-1), s.repeat_interleave(2, dim=-1)
    return torch.cat([c, c], dim=-1), torch.cat([s, s], dim=-1)


def _rotate_half(x: Tensor, interleaved: bool) -> Tensor:
    if not interleaved:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)


def apply_rotary_emb(x: Tensor, cos: Tensor, sin: Tensor, interleaved: bool = False, inplace: bool = False,
                     seqlen_offsets: Union[int, Tensor] = 0, cu_seqlens: Optional[Tensor] = None,
                     max_seqlen: Optional[int] = None) -> Tensor:
    """x (batch, seqlen, nheads, headdim), or (total, nheads, headdim) with cu_seqlens; cos/sin
    (seqlen_ro, rotary_dim / 2). Rotates the first rotary_dim of x (GPT-NeoX halves, or GPT-J pairs
    when interleaved); seqlen_offsets (int or (batch,)) shifts each sequence's positions."""
    rd = cos.shape[-1] * 2
    assert rd <= x.shape[-1], "rotary_dim must be <= headdim"
    offsets = seqlen_offsets if isinstance(seqlen_offsets, Tensor) else torch.tensor(seqlen_offsets)
    offsets = offsets.to(device=x.device, dtype=torch.long)
    if cu_seqlens is None:
        pos = torch.arange(x.shape[1], device=x.device)[None, :] + offsets.reshape(-1, 1)  # (batch or 1, seqlen)
        shape = (pos.shape[0], x.shape[1], 1, rd)
    else:
        cu = cu_seqlens.to(device=x.device, dtype=torch.long)
        t = torch.arange(x.shape[0], device=x.device)
        seq = (torch.searchsorted(cu[1:], t, right=True)).clamp(max=cu.numel() - 2)
        pos = t - cu[seq] + (offsets[seq] if offsets.dim() else offsets)
        pos = torch.where(t < cu[-1], pos, cos.shape[0])  # after the last sequence: untouched
        shape = (1, x.shape[0], 1, rd)
    c, s = _rotary_tables(cos, sin, pos, interleaved)
    c, s = c.reshape(shape), s.reshape(shape)
    part = x[..., :rd].clone() if inplace else x[..., :rd]
    x4 = part if cu_seqlens is None else part[None]
    if _on_npu(x):
        mode = {"rotary_mode": "interleave"} if interleaved else {}  # releases before it know "half" only
        torch_npu = _torch_npu()
        rotated: Tensor = torch_npu.npu_rotary_mul(x4, c.to(x.dtype), s.to(x.dtype), **mode)
    else:
        xf = x4.float()
        rotated = (xf * c + _rotate_half(xf, interleaved) * s).to(x.dtype)
    rotated = rotated if cu_seqlens is None else rotated[0]
    if inplace:
        x[..., :rd] = rotated
        return x
    return torch.cat([rotated, x[..., rd:]], dim=-1) if rd < x.shape[-1] else rotated


class RotaryEmbedding(torch.nn.Module):
    """flash_attn.layers.rotary.RotaryEmbedding: rotates q and k in place; XPos (Sun et al. 2022) when
    scale_base is set. Keeps the cos/sin tables of the longest length asked for so far, as flash-attn."""

    inv_freq: Tensor
    scale: Optional[Tensor]

    def __init__(self, dim: int, base: float = 10000.0, interleaved: bool = False,
                 scale_base: Optional[float] = None, device: Optional[torch.device] = None) -> None:
        super().__init__()
        self.dim, self.base, self.interleaved, self.scale_base = dim, float(base), interleaved, scale_base
        self.register_buffer("inv_freq", self._frequencies(device), persistent=False)
        even = torch.arange(0, dim, 2, device=device, dtype=torch.float32)
        self.register_buffer("scale", (even + 0.4 * dim) / (1.4 * dim) if scale_base is not None else None,
                             persistent=False)
        self._tables: Tuple[Tensor, ...] = ()  # cos, sin (and cos_k, sin_k with XPos)

    def _frequencies(self, device: Optional[torch.device] = None) -> Tensor:
        even = torch.arange(0, self.dim, 2, device=device, dtype=torch.float32)
        return 1.0 / (self.base ** (even / self.dim))

    def _tables_for(self, seqlen: int, device: torch.device, dtype: torch.dtype) -> Tuple[Tensor, ...]:
        have = self._tables
        if (not have or seqlen > have[0].shape[0] or have[0].device != device or have[0].dtype != dtype
                or (self.training and have[0].is_inference())):
            # float32 angles whatever the module's dtype: position times frequency needs the precision
            inv = self.inv_freq if self.inv_freq.dtype == torch.float32 else self._frequencies(device)
            angles = torch.arange(seqlen, device=device, dtype=torch.float32)[:, None] * inv[None, :]
            cos, sin = angles.cos(), angles.sin()
            if self.scale is None or self.scale_base is None:
                self._tables = (cos.to(dtype), sin.to(dtype))
            else:
                centred = torch.arange(seqlen, device=device, dtype=torch.float32) - seqlen // 2
                zeta = self.scale.to(device)[None, :] ** (centred[:, None] / self.scale_base)
                self._tables = ((cos * zeta).to(dtype), (sin * zeta).to(dtype), (cos / zeta).to(dtype),
                                (sin / zeta).to(dtype))
        return self._tables

    def forward(self, qkv: Tensor, kv: Optional[Tensor] = None, seqlen_offset: Union[int, Tensor] = 0,
                max_seqlen: Optional[int] = None,
                num_heads_q: Optional[int] = None) -> Union[Tensor, Tuple[Tensor, Tensor]]:
        """qkv (batch, seqlen, 3, nheads, headdim) or (batch, seqlen, nheads_q + 2 * nheads_k, headdim), or
        q when kv (batch, seqlen, 2, nheads, headdim) is given; rotates q and k in place."""
        if max_seqlen is not None or isinstance(seqlen_offset, int):
            wanted = max_seqlen if max_seqlen is not None else qkv.shape[1] + int(seqlen_offset)
            self._tables_for(wanted, qkv.device, qkv.dtype)
        assert self._tables, "RotaryEmbedding: pass max_seqlen with a tensor seqlen_offset"
        cos, sin = self._tables[:2]
        cos_k, sin_k = self._tables[2:] if len(self._tables) == 4 else (cos, sin)
        il, off = self.interleaved, seqlen_offset
        if kv is None:
            if qkv.dim() == 5:
                q, k = qkv[:, :, 0], qkv[:, :, 1]
            else:
                assert num_heads_q is not None
                num_heads_k = (qkv.shape[2] - num_heads_q) // 2
                q, k = qkv[:, :, :num_heads_q], qkv[:, :, num_heads_q:num_heads_q + num_heads_k]
            apply_rotary_emb(q, cos, sin, interleaved=il, inplace=True, seqlen_offsets=off)
            apply_rotary_emb(k, cos_k, sin_k, interleaved=il, inplace=True, seqlen_offsets=off)
            return qkv
        q = apply_rotary_emb(qkv, cos, sin, interleaved=il, inplace=True, seqlen_offsets=off)
        apply_rotary_emb(kv[:, :, 0], cos_k, sin_k, interleaved=il, inplace=True, seqlen_offsets=off)
        return q, kv


# ---------------------------------------------------------------- norms


def _normalize(h: Tensor, weight: Tensor, bias: Optional[Tensor], eps: float, is_rms_norm: bool) -> Tensor:
    """flash-attn's kernel computes in float32; torch_npu.npu_rms_norm takes weight in the input's dtype."""
    y: Tensor
    if is_rms_norm and _on_npu(h):
        hh, ww = (h, weight) if h.dtype == weight.dtype else (h.float(), weight.float())
        torch_npu = _torch_npu()
        y = torch_npu.npu_rms_norm(hh, ww, eps)[0].float()
    elif is_rms_norm:
        hf = h.float()
        y = hf * torch.rsqrt(hf.square().mean(-1, keepdim=True) + eps) * weight.float()
    else:
        y = F.layer_norm(h.float(), h.shape[-1:], weight.float(), None, eps)
    return y + bias.float() if bias is not None else y


def _dropout(x: Tensor, p: float) -> Tuple[Tensor, Optional[Tensor]]:
    if p <= 0.0:
        return x, None
    keep = torch.rand(x.shape, device=x.device) > p
    return x.masked_fill(~keep, 0.0) / (1.0 - p), keep


def layer_norm_fn(x: Tensor, weight: Tensor, bias: Optional[Tensor], residual: Optional[Tensor] = None,
                  x1: Optional[Tensor] = None, weight1: Optional[Tensor] = None, bias1: Optional[Tensor] = None,
                  eps: float = 1e-6, dropout_p: float = 0.0, rowscale: Optional[Tensor] = None,
                  prenorm: bool = False, residual_in_fp32: bool = False, zero_centered_weight: bool = False,
                  is_rms_norm: bool = False, return_dropout_mask: bool = False,
                  out_dtype: Optional[torch.dtype] = None, out: Optional[Tensor] = None,
                  residual_out: Optional[Tensor] = None) -> Any:
    """flash_attn.ops.triton.layer_norm.layer_norm_fn: norm(dropout(x * rowscale) [+ dropout(x1)] + residual)."""
    if x1 is not None:
        assert rowscale is None, "rowscale is not supported with parallel LayerNorm"
    residual_dtype = residual.dtype if residual is not None else (torch.float32 if residual_in_fp32 else x.dtype)
    h = x.float() * rowscale[..., None] if rowscale is not None else x
    h, mask = _dropout(h, dropout_p)
    mask1 = None
    if x1 is not None:
        h1, mask1 = _dropout(x1, dropout_p)
        h = h.float() + h1.float()
    if residual is not None:
        h = h.float() + residual.float()
    res = h.to(residual_dtype)  # x itself when nothing was added and the dtype stays
    if residual_out is not None:
        res = residual_out.copy_(res)
    if zero_centered_weight:
        weight = weight + 1.0
        weight1 = weight1 + 1.0 if weight1 is not None else None
    y = _normalize(h, weight, bias, eps, is_rms_norm).to(out_dtype or x.dtype)
    if out is not None:
        y = out.copy_(y)
    outs: List[Any] = [y]
    if weight1 is not None:
        outs.append(_normalize(h, weight1, bias1, eps, is_rms_norm).to(out_dtype or x.dtype))
    if prenorm:
        outs.append(res)
    if return_dropout_mask:
        outs += [mask, mask1]
    return outs[0] if len(outs) == 1 else tuple(outs)


def rms_norm_fn(x: Tensor, weight: Tensor, bias: Optional[Tensor], residual: Optional[Tensor] = None,
                x1: Optional[Tensor] = None, weight1: Optional[Tensor] = None, bias1: Optional[Tensor] = None,
                eps: float = 1e-6, dropout_p: float = 0.0, rowscale: Optional[Tensor] = None, prenorm: bool = False,
                residual_in_fp32: bool = False, zero_centered_weight: bool = False,
                return_dropout_mask: bool = False, out_dtype: Optional[torch.dtype] = None,
                out: Optional[Tensor] = None, residual_out: Optional[Tensor] = None) -> Any:
    """flash_attn.ops.triton.layer_norm.rms_norm_fn: layer_norm_fn with is_rms_norm=True."""
    return layer_norm_fn(x, weight, bias, residual, x1, weight1, bias1, eps, dropout_p, rowscale, prenorm,
                         residual_in_fp32, zero_centered_weight, True, return_dropout_mask, out_dtype, out,
                         residual_out)


def rms_norm(x: Tensor, weight: Tensor, epsilon: float) -> Tensor:
    """flash_attn.ops.rms_norm.rms_norm."""
    return rms_norm_fn(x, weight, None, eps=epsilon)  # type: ignore[no-any-return]


class RMSNorm(torch.nn.Module):
    """flash_attn.ops.triton.layer_norm.RMSNorm (flash_attn.ops.rms_norm.RMSNorm takes (hidden_size, eps,
    device, dtype): pass device/dtype by keyword)."""

    bias: Optional[Tensor]

    def __init__(self, hidden_size: int, eps: float = 1e-5, dropout_p: float = 0.0,
                 zero_centered_weight: bool = False, device: Optional[torch.device] = None,
                 dtype: Optional[torch.dtype] = None) -> None:
        super().__init__()
        self.eps = eps
        self.drop = torch.nn.Dropout(dropout_p) if dropout_p > 0.0 else None
        self.zero_centered_weight = zero_centered_weight
        self.weight = torch.nn.Parameter(torch.empty(hidden_size, device=device, dtype=dtype))
        self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        (torch.nn.init.zeros_ if self.zero_centered_weight else torch.nn.init.ones_)(self.weight)

    def forward(self, x: Tensor, residual: Optional[Tensor] = None, prenorm: bool = False,
                residual_in_fp32: bool = False) -> Any:
        return rms_norm_fn(x, self.weight, self.bias, residual=residual, eps=self.eps,
                           dropout_p=self.drop.p if self.drop is not None and self.training else 0.0,
                           prenorm=prenorm, residual_in_fp32=residual_in_fp32,
                           zero_centered_weight=self.zero_centered_weight)


# ---------------------------------------------------------------- cross entropy


def cross_entropy_loss(logits: Tensor, labels: Tensor, precomputed_lse: Optional[Tensor] = None,
                       label_smoothing: float = 0.0, logit_scale: float = 1.0, lse_square_scale: float = 0.0,
                       ignore_index: int = -100, inplace_backward: bool = False,
                       process_group: Any = None) -> Tuple[Tensor, Tensor]:
    """flash_attn.ops.triton.cross_entropy.cross_entropy_loss: logits (batch, vocab), labels (batch,) ->
    (losses, z_losses), float32 per row, 0 where labels == ignore_index; the loss includes the z-loss
    lse_square_scale * lse^2; precomputed_lse is recomputed instead (same value)."""
    if process_group is not None:
        raise NotImplementedError("flash_attn_npu: cross entropy with process_group=... (vocabulary split over "
                                  "tensor-parallel ranks) is not available in this shim")
    scaled = logits.float() * logit_scale
    lse = torch.logsumexp(scaled, dim=-1)
    ignored = labels == ignore_index
    picked = scaled.gather(-1, labels.masked_fill(ignored, 0)[:, None]).squeeze(-1)
    s = label_smoothing
    loss = lse - picked if s == 0.0 else lse - s * scaled.sum(-1) / scaled.shape[-1] - (1.0 - s) * picked
    z_loss = lse_square_scale * lse.square() if lse_square_scale != 0.0 else torch.zeros_like(lse)
    loss = (loss + z_loss).masked_fill(ignored, 0.0)
    return loss, z_loss.detach().masked_fill(ignored, 0.0)  # z_losses for logging only, as flash-attn


class CrossEntropyLoss(torch.nn.Module):
    """flash_attn.losses.cross_entropy.CrossEntropyLoss: float32 loss per row, 0 where target ==
    ignore_index; label smoothing as torch's; lse_square_scale adds the z-loss."""

    def __init__(self, ignore_index: int = -100, reduction: str = "mean", label_smoothing: float = 0.0,
                 logit_scale: float = 1.0, lse_square_scale: float = 0.0, inplace_backward: bool = False,
                 process_group: Any = None, return_z_loss: bool = False) -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise NotImplementedError(f"flash_attn_npu: reduction {reduction!r}: flash-attn's CrossEntropyLoss "
                                      "knows 'mean', 'sum' and 'none'")
        if process_group is not None:
            raise NotImplementedError("flash_attn_npu: CrossEntropyLoss(process_group=...) (vocabulary split "
                                      "over tensor-parallel ranks) is not available in this shim")
        self.ignore_index, self.reduction, self.label_smoothing = ignore_index, reduction, label_smoothing
        self.logit_scale, self.lse_square_scale = logit_scale, lse_square_scale
        self.inplace_backward, self.process_group, self.return_z_loss = inplace_backward, process_group, return_z_loss

    def forward(self, input: Tensor, target: Tensor, precomputed_lse: Optional[Tensor] = None) -> Any:
        """input (batch, vocab), target (batch,); precomputed_lse is recomputed instead (same value)."""
        loss, z_loss = cross_entropy_loss(input, target, None, self.label_smoothing, self.logit_scale,
                                          self.lse_square_scale, self.ignore_index)
        count = (target != self.ignore_index).sum()
        if self.reduction == "mean":
            loss, z_loss = loss.sum() / count, z_loss.sum() / count
        elif self.reduction == "sum":
            loss, z_loss = loss.sum(), z_loss.sum()
        return (loss, z_loss) if self.return_z_loss else loss


# ---------------------------------------------------------------- activations


def swiglu(x: Tensor, y: Tensor) -> Tensor:
    """flash_attn.ops.activations.swiglu: silu(x) * y computed in float32, in x's dtype."""
    return (F.silu(x.float()) * y.float()).to(x.dtype)


# `from flash_attn import bert_padding`: the submodule's functions, read as its attributes.
bert_padding = types.SimpleNamespace(pad_input=pad_input, unpad_input=unpad_input, index_first_axis=index_first_axis,
                                     rearrange=rearrange, repeat=repeat)
