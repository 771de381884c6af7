"""torch_npu.npu_fusion_attention on the simulated npu: the attention the fused kernel computes,
written as explicit torch math (masked scores, softmax, dropout, weighted values) so that autograd
gives the backward and every op runs as an npu op.

Contract, from torch_npu's documentation and its kernel:
- Ascend/op-plugin docs/zh/custom_APIs/torch_npu/torch_npu-npu_fusion_attention.md: the arguments,
  layouts (TND takes actual_seq_qlen/actual_seq_kvlen as cumulative ends), GQA (Nq a multiple of
  Nkv), atten_mask (True/1 = masked; BNSS, B1SS, 11SS or SS; SS of (max Sq, max Skv) for TND),
  "atten_mask None: sparse_mode, pre_tockens and next_tockens have no effect, full computation",
  the sparse modes and the compressed 2048x2048 mask of modes 2-4;
- the sparse_mode description of Ascend/ops-transformer (docs/context/sparse_mode参数说明.md): mode
  0's band is measured from the top-left corner, modes 3 and 4 from the bottom-right one (mode 7's
  worked example fixes the band's sign convention: allowed where -pre <= j - i - (Skv - Sq) <= next);
- the kernel's output allocation (MindSpeed's copy of op-plugin's npu_fusion_attention_v2):
  softmax_max and softmax_sum are float32 [B, N, Sq, 8] ([T, N, 8] for TND), the row's value
  repeated 8 times; softmax_out is an empty tensor; numels is the dropout mask's length B*N*Sq*Skv.
softmax_max is the row maximum of the masked scaled scores scale * q.k, softmax_sum the sum of
exp(score - max) over the row (msprobe's golden fusion_attention_forward computes them so).
"""
from __future__ import annotations

import warnings
from typing import Sequence

import torch

from banjia.npu_sim.npu_kernels import compute_dtype, outside_autocast, require_dtype, require_npu

__all__ = ["npu_fusion_attention"]

_API = "npu_fusion_attention"
_LAYOUTS = ("BSH", "SBH", "BSND", "BNSD", "TND")
_ALL_TOKENS = 2147483647
_COMPRESSED_SIDE = 2048
_SOFTMAX_COPIES = 8
_compressed: list[torch.Tensor] = []  # the CPU copy of the compressed causal mask, made once

Result = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int, int, int]


def _fail(message: str) -> RuntimeError:
    """What torch_npu itself refuses (its TORCH_CHECKs raise RuntimeError)."""
    return RuntimeError(f"torch_npu.{_API}: {message}")


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(f"torch_npu.{_API}: {what} is not provided by the simulator")


def _reject_unsupported(pse: torch.Tensor | None, padding_mask: torch.Tensor | None, prefix: object,
                        softmax_layout: str, sink: torch.Tensor | None, dropout_mask: torch.Tensor | None,
                        sparse_mode: int, layout: str) -> None:
    if pse is not None:
        raise _unsupported("pse (the position-encoding input)")
    if padding_mask is not None:
        raise _unsupported("padding_mask (which torch_npu documents as not supported either)")
    if prefix is not None:
        raise _unsupported("prefix (the prefix sparse modes)")
    if softmax_layout:
        raise _unsupported(f"softmax_layout={softmax_layout!r}")
    if sink is not None:
        raise _unsupported("sink (the per-head attention sink)")
    if dropout_mask is not None:
        raise _unsupported("dropout_mask (an external dropout mask)")
    valid = (0, 1, 2, 3, 4, 6, 7, 8) if layout == "TND" else (0, 1, 2, 3, 4, 5, 6)
    if sparse_mode not in valid:
        raise _fail(f"sparse_mode {sparse_mode} is not valid for input_layout {layout} (valid: {valid})")
    if sparse_mode > 4:
        raise _unsupported(f"sparse_mode {sparse_mode} (prefix and split-sequence modes)")


def _head_counts(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, head_num: int,
                 layout: str) -> tuple[int, int]:
    """(query heads, key/value heads), checked against the layout's shapes."""
    rank = 4 if layout in ("BSND", "BNSD") else 3
    if any(t.dim() != rank for t in (query, key, value)):
        raise _fail(f"input_layout {layout} takes {rank}-dimensional query, key and value, got shapes "
                    f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}")
    if layout in ("BSH", "SBH"):
        hidden, kv_hidden, v_hidden = query.size(2), key.size(2), value.size(2)
        if hidden % head_num:
            raise _fail(f"query hidden size {hidden} is not a multiple of head_num {head_num}")
        head_dim = hidden // head_num
        kv_heads = kv_hidden // head_dim
        if kv_hidden % head_dim or kv_heads == 0 or v_hidden % kv_heads:
            raise _fail(f"key/value hidden sizes {kv_hidden}/{v_hidden} do not split into heads of {head_dim}")
        return head_num, kv_heads
    axis = 2 if layout == "BSND" else 1
    if query.size(axis) != head_num:
        raise _fail(f"head_num {head_num} differs from the query's {query.size(axis)} heads ({layout})")
    if value.size(axis) != key.size(axis):
        raise _fail("key and value have different numbers of heads")
    return head_num, key.size(axis)


def _bnsd(t: torch.Tensor, layout: str, heads: int) -> torch.Tensor:
    """t as [B, N, S, D]."""
    if layout == "BSH":
        return t.reshape(t.size(0), t.size(1), heads, -1).transpose(1, 2)
    if layout == "SBH":
        return t.reshape(t.size(0), t.size(1), heads, -1).permute(1, 2, 0, 3)
    if layout == "BSND":
        return t.transpose(1, 2)
    return t


def _from_bnsd(t: torch.Tensor, layout: str) -> torch.Tensor:
    batch, heads, seq, dim = t.shape
    if layout == "BSH":
        return t.transpose(1, 2).reshape(batch, seq, heads * dim)
    if layout == "SBH":
        return t.permute(2, 0, 1, 3).reshape(seq, batch, heads * dim)
    if layout == "BSND":
        return t.transpose(1, 2).contiguous()
    return t.contiguous()


def _check_compressed(atten_mask: torch.Tensor, sparse_mode: int) -> None:
    # torch_npu reads the mask of modes 2-4 as this exact pattern and computes wrong results with
    # any other; the simulator refuses instead of computing either result.
    if not _compressed:
        _compressed.append(torch.ones(_COMPRESSED_SIDE, _COMPRESSED_SIDE, dtype=torch.bool).triu(1))
    if (tuple(atten_mask.shape) != (_COMPRESSED_SIDE, _COMPRESSED_SIDE)
            or atten_mask.dtype not in (torch.bool, torch.uint8)
            or not torch.equal(atten_mask.to("cpu") != 0, _compressed[0])):
        raise ValueError(f"torch_npu.{_API}: sparse_mode={sparse_mode} takes the compressed causal mask "
                         "torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1) as atten_mask; "
                         f"got shape {tuple(atten_mask.shape)} dtype {atten_mask.dtype} (or other values), with "
                         "which torch_npu computes wrong results")


def _user_mask(atten_mask: torch.Tensor, shapes: Sequence[tuple[int, ...]]) -> torch.Tensor:
    if atten_mask.dtype not in (torch.bool, torch.uint8):
        raise _fail(f"atten_mask must be bool or uint8, got {atten_mask.dtype}")
    if tuple(atten_mask.shape) not in shapes:
        raise _fail(f"atten_mask shape {tuple(atten_mask.shape)} is none of the accepted {list(shapes)}")
    return atten_mask if atten_mask.dtype == torch.bool else atten_mask != 0


def _sparse_mask(sparse_mode: int, q_len: int, kv_len: int, pre: int, nxt: int,
                 device: torch.device) -> torch.Tensor | None:
    """[Sq, Skv], True where the sparse mode masks query row i from key column j."""
    if sparse_mode == 1:
        return None
    i = torch.arange(q_len, device=device).unsqueeze(1)
    j = torch.arange(kv_len, device=device).unsqueeze(0)
    if sparse_mode == 0:  # band measured from the top-left corner
        return (j - i > nxt) | (i - j > pre)
    if sparse_mode == 2:  # causal from the top-left corner
        return j > i
    shift = kv_len - q_len  # modes 3 and 4 are aligned at the bottom-right corner
    if sparse_mode == 3:
        return j > i + shift
    return (j - i - shift > nxt) | (i + shift - j > pre)


def _mask(user: torch.Tensor | None, has_mask: bool, sparse_mode: int, q_len: int, kv_len: int, pre: int,
          nxt: int, device: torch.device) -> torch.Tensor | None:
    if not has_mask:
        return None  # torch_npu: no atten_mask, full computation whatever the sparse mode
    sparse = _sparse_mask(sparse_mode, q_len, kv_len, pre, nxt, device)
    if user is None:
        return sparse
    return user if sparse is None else user | sparse


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, masked: torch.Tensor | None, scale: float,
            keep_prob: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """softmax(mask(scale * q k^T)) v over [B, N, S, D] tensors; also the row max and row sum.

    A row whose every key is masked gives 0 (torch_npu's "invalid row" computation, which the doc
    says it switches on itself where it detects such rows, e.g. sparse_mode 3 with Sq > Skv), with
    max -inf and sum 0; its gradients are 0 rather than NaN.
    """
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if masked is not None:
        scores = scores.masked_fill(masked, float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True).detach()
    live = row_max != float("-inf")
    weights = torch.exp(scores - torch.where(live, row_max, torch.zeros_like(row_max)))
    row_sum = weights.sum(dim=-1, keepdim=True)
    probs = weights / torch.where(live, row_sum, torch.ones_like(row_sum))
    if keep_prob < 1.0:
        probs = torch.nn.functional.dropout(probs, p=1.0 - keep_prob)  # keeps keep_prob, scales by 1/keep_prob
    return torch.matmul(probs, v), row_max, row_sum.detach()


def _grouped(t: torch.Tensor, heads: int) -> torch.Tensor:
    """Key/value heads repeated for GQA: query head h reads key/value head h // (heads / kv_heads)."""
    return t if t.size(1) == heads else t.repeat_interleave(heads // t.size(1), dim=1)


def _softmax_stat(row: torch.Tensor) -> torch.Tensor:
    return row.to(torch.float32).expand(*row.shape[:-1], _SOFTMAX_COPIES).contiguous()


def _dense(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, heads: int, kv_heads: int, layout: str,
           atten_mask: torch.Tensor | None, sparse_mode: int, pre: int, nxt: int, scale: float,
           keep_prob: float) -> Result:
    dtype = compute_dtype(query.dtype)
    q, k, v = (_bnsd(t, layout, n).to(dtype) for t, n in ((query, heads), (key, kv_heads), (value, kv_heads)))
    batch, _, q_len, _ = q.shape
    kv_len = k.size(2)
    if k.size(0) != batch or v.size(0) != batch or v.size(2) != kv_len:
        raise _fail("query, key and value disagree on the batch size or key/value on the sequence length")
    user = None
    if atten_mask is not None and sparse_mode in (0, 1):
        user = _user_mask(atten_mask, [(q_len, kv_len), (1, 1, q_len, kv_len), (batch, 1, q_len, kv_len),
                                       (batch, heads, q_len, kv_len)])
    masked = _mask(user, atten_mask is not None, sparse_mode, q_len, kv_len, pre, nxt, query.device)
    out, row_max, row_sum = _attend(q, _grouped(k, heads), _grouped(v, heads), masked, scale, keep_prob)
    return (_from_bnsd(out.to(query.dtype), layout), _softmax_stat(row_max), _softmax_stat(row_sum),
            query.new_empty(0), 0, 0, batch * heads * q_len * kv_len)


def _ends(values: Sequence[int] | None, name: str) -> list[int]:
    if values is None:
        raise _fail(f"input_layout TND needs {name} (cumulative sequence ends)")
    return [int(v) for v in values]


def _sequence_ends(actual_seq_qlen: Sequence[int] | None, actual_seq_kvlen: Sequence[int] | None,
                   total_q: int, total_kv: int) -> tuple[list[int], list[int]]:
    q_ends, kv_ends = _ends(actual_seq_qlen, "actual_seq_qlen"), _ends(actual_seq_kvlen, "actual_seq_kvlen")
    if not q_ends or len(q_ends) != len(kv_ends):
        raise _fail(f"actual_seq_qlen and actual_seq_kvlen must have the same, non-zero length, got "
                    f"{len(q_ends)} and {len(kv_ends)}")
    # Trailing zeros: batches at the end that take no part (torch_npu's doc: [2, 5, 9, 0, 0]).
    while len(q_ends) > 1 and q_ends[-1] == 0 and kv_ends[-1] == 0:
        q_ends.pop()
        kv_ends.pop()
    for ends, total, name in ((q_ends, total_q, "actual_seq_qlen"), (kv_ends, total_kv, "actual_seq_kvlen")):
        if any(b < a for a, b in zip([0, *ends], ends)) or ends[-1] > total:
            raise _fail(f"{name} {ends} must be non-decreasing cumulative ends within the {total} tokens")
    return q_ends, kv_ends


def _varlen(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, heads: int,
            atten_mask: torch.Tensor | None, sparse_mode: int, pre: int, nxt: int, scale: float, keep_prob: float,
            actual_seq_qlen: Sequence[int] | None, actual_seq_kvlen: Sequence[int] | None) -> Result:
    """TND: each sequence attends to its own keys; the masks and alignments are per sequence."""
    if key.size(0) != value.size(0):
        raise _fail(f"key and value have different numbers of tokens, {key.size(0)} and {value.size(0)}")
    q_ends, kv_ends = _sequence_ends(actual_seq_qlen, actual_seq_kvlen, query.size(0), key.size(0))
    spans = list(zip([0, *q_ends], q_ends, [0, *kv_ends], kv_ends))
    max_q = max(qe - qs for qs, qe, _, _ in spans)
    max_kv = max(ke - ks for _, _, ks, ke in spans)
    user = None
    if atten_mask is not None and sparse_mode in (0, 1):
        user = _user_mask(atten_mask, [(max_q, max_kv)])
    dtype = compute_dtype(query.dtype)
    outs, maxes, sums = [], [], []
    for q_start, q_end, kv_start, kv_end in spans:
        q_len, kv_len = q_end - q_start, kv_end - kv_start
        if q_len == 0:
            continue
        q = query[q_start:q_end].transpose(0, 1).unsqueeze(0).to(dtype)  # [1, N, Sq, D]
        if kv_len == 0:  # every row is masked: the invalid-row result
            outs.append(query.new_zeros(q_len, heads, value.size(2), dtype=dtype))
            maxes.append(torch.full((q_len, heads), float("-inf"), device=query.device))
            sums.append(query.new_zeros(q_len, heads, dtype=torch.float32))
            continue
        k, v = (t[kv_start:kv_end].transpose(0, 1).unsqueeze(0).to(dtype) for t in (key, value))
        seq_user = None if user is None else user[:q_len, :kv_len]
        masked = _mask(seq_user, atten_mask is not None, sparse_mode, q_len, kv_len, pre, nxt, query.device)
        out, row_max, row_sum = _attend(q, _grouped(k, heads), _grouped(v, heads), masked, scale, keep_prob)
        outs.append(out[0].transpose(0, 1))
        maxes.append(row_max[0, :, :, 0].transpose(0, 1))
        sums.append(row_sum[0, :, :, 0].transpose(0, 1))
    uncovered = query.size(0) - q_ends[-1]
    if uncovered:  # tokens after the last sequence: torch_npu leaves them unwritten, the simulator writes 0
        outs.append(query.new_zeros(uncovered, heads, value.size(2), dtype=dtype))
        maxes.append(query.new_zeros(uncovered, heads, dtype=torch.float32))
        sums.append(query.new_zeros(uncovered, heads, dtype=torch.float32))
    numels = heads * sum((qe - qs) * (ke - ks) for qs, qe, ks, ke in spans)
    return (torch.cat(outs).to(query.dtype), _softmax_stat(torch.cat(maxes).unsqueeze(-1)),
            _softmax_stat(torch.cat(sums).unsqueeze(-1)), query.new_empty(0), 0, 0, numels)


@outside_autocast
def npu_fusion_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, head_num: int,
                         input_layout: str, pse: torch.Tensor | None = None,
                         padding_mask: torch.Tensor | None = None, atten_mask: torch.Tensor | None = None,
                         scale: float = 1.0, keep_prob: float = 1.0, pre_tockens: int = _ALL_TOKENS,
                         next_tockens: int = _ALL_TOKENS, inner_precise: int = 0, prefix: Sequence[int] | None = None,
                         actual_seq_qlen: Sequence[int] | None = None, actual_seq_kvlen: Sequence[int] | None = None,
                         sparse_mode: int = 0, gen_mask_parallel: bool = True, sync: bool = False,
                         softmax_layout: str = "", sink: torch.Tensor | None = None,
                         dropout_mask: torch.Tensor | None = None, seed: int = 0, offset: int = 0) -> Result:
    """(attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels).

    inner_precise, gen_mask_parallel and sync select how the NPU computes, not what: accepted and
    ignored. Dropout draws from torch's CPU generator (the simulator's npu random source), so the
    returned seed and offset are 0 and mean nothing; seed= and offset= arguments are ignored likewise.
    """
    require_npu(_API, query=query, key=key, value=value, atten_mask=atten_mask, pse=pse)
    layout = input_layout.upper()  # torch_npu accepts the layout in any case
    if layout not in _LAYOUTS:
        raise _fail(f"input_layout {input_layout!r} is not one of {', '.join(_LAYOUTS)}")
    _reject_unsupported(pse, padding_mask, prefix, softmax_layout, sink, dropout_mask, sparse_mode, layout)
    require_dtype(_API, query=query, key=key, value=value)
    if not query.dtype == key.dtype == value.dtype:
        raise _fail(f"query, key and value must have one dtype, got {query.dtype}, {key.dtype}, {value.dtype}")
    if head_num <= 0:
        raise _fail(f"head_num must be > 0, got {head_num}")
    if not 0.0 <= keep_prob <= 1.0:
        raise _fail(f"keep_prob must be in [0, 1], got {keep_prob}")
    heads, kv_heads = _head_counts(query, key, value, head_num, layout)
    if heads % kv_heads:
        raise _fail(f"the query's {heads} heads are not a multiple of the key/value's {kv_heads}")
    split = layout in ("BSH", "SBH")  # the hidden size holds the heads
    q_dim, k_dim = query.size(-1) // (heads if split else 1), key.size(-1) // (kv_heads if split else 1)
    v_dim = value.size(-1) // (kv_heads if split else 1)
    if q_dim != k_dim or v_dim > k_dim:
        raise _fail(f"head dimensions must satisfy Dq == Dk >= Dv, got {q_dim}, {k_dim}, {v_dim}")
    if atten_mask is None and (sparse_mode != 0 or pre_tockens != _ALL_TOKENS or next_tockens != _ALL_TOKENS):
        warnings.warn(f"torch_npu.{_API}: without atten_mask torch_npu ignores sparse_mode, pre_tockens and "
                      "next_tockens and attends to every key (full computation)", stacklevel=2)
    if atten_mask is not None and sparse_mode in (2, 3, 4):
        _check_compressed(atten_mask, sparse_mode)
    if layout == "TND":
        return _varlen(query, key, value, heads, atten_mask, sparse_mode, pre_tockens, next_tockens, scale,
                       keep_prob, actual_seq_qlen, actual_seq_kvlen)
    return _dense(query, key, value, heads, kv_heads, layout, atten_mask, sparse_mode, pre_tockens, next_tockens,
                  scale, keep_prob)
