"""xformers_npu: xformers' attention and SwiGLU API on Ascend NPUs (torch_npu) and on any other torch device.

banjia migrate wrote this file into the migrated program and pointed the program's xformers imports here.
The program's owner owns it from now on: read it, edit it, check it in. It imports nothing of banjia.

Each name keeps xformers' signature and semantics (facebookresearch/xformers: xformers/ops/fmha/__init__.py,
xformers/ops/fmha/attn_bias.py, xformers/ops/swiglu_op.py; the fmha code moved to the `mslk` package in
2026 with the same API). On tensors of an `npu` device it calls torch_npu:

- memory_efficient_attention -> torch_npu.npu_fusion_attention, layout BSND, scale = `scale` or
  1/sqrt(K), keep_prob = 1 - p. attn_bias: None -> no mask; LowerTriangularMask (TOP-LEFT aligned:
  query i sees keys 0..i) -> sparse_mode=2; LowerTriangularFromBottomRightMask -> sparse_mode=3; both with
  the compressed 2048x2048 triu(diagonal=1) mask. BlockDiagonalMask / BlockDiagonalCausalMask (inputs of
  batch 1, sequences concatenated) -> layout TND with actual_seq_qlen / actual_seq_kvlen = the blocks'
  cumulative ends, no mask / sparse_mode=2 (each block top-left causal). Sources: torch_npu
  npu_fusion_attention docs (Ascend/op-plugin).
- SwiGLU -> torch_npu.npu_swiglu on the packed w12 projection (silu of the first half times the second half,
  which is xformers' w1/w2 packing); the linear layers stay torch ops.
On any other device everything computes with plain torch.

Raises NotImplementedError on every device: any other attn_bias (a torch.Tensor bias, the padded, paged,
gappy and local-attention masks, LowerTriangularMaskWithTensorBias): torch_npu takes a bias only as
npu_fusion_attention's `pse`, whose scaling convention differs between torch_npu releases, so this shim does
not build one. `op` (the xformers kernel choice) is accepted and ignored. A query that sees no key (bottom-right
mask with more queries than keys) gives 0 here; xformers does not document its value.
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "memory_efficient_attention", "SwiGLU", "AttentionBias", "LowerTriangularMask", "LowerTriangularFromBottomRightMask",
    "BlockDiagonalMask", "BlockDiagonalCausalMask", "fmha",
]

Tensor = torch.Tensor
_MASKS: Dict[torch.device, Tensor] = {}  # the compressed causal mask, once per device


def _torch_npu() -> Any:
    import torch_npu  # imported only for npu tensors: the module also runs where there is no torch_npu
    return torch_npu


def _not_available(what: str) -> NotImplementedError:
    return NotImplementedError(f"xformers_npu: {what} is not available: torch_npu.npu_fusion_attention takes "
                               "a bias only as `pse`, which this shim does not build")


def _causal_bias(shape: Sequence[int], dtype: torch.dtype, device: Union[str, torch.device],
                 bottom_right: bool) -> Tensor:
    sq, sk = shape[-2], shape[-1]
    keep = torch.ones(sq, sk, dtype=torch.bool, device=device).tril(sk - sq if bottom_right else 0)
    return torch.zeros(sq, sk, dtype=dtype, device=device).masked_fill(~keep, -math.inf).expand(*shape)


class AttentionBias:
    """Base of xformers' attention biases."""

    def materialize(self, shape: Tuple[int, ...], dtype: torch.dtype = torch.float32,
                    device: Union[str, torch.device] = "cpu") -> Tensor:
        raise NotImplementedError()


class LowerTriangularMask(AttentionBias):
    """Causal, aligned top-left: query i sees keys 0..i."""

    def __init__(self, device: Optional[torch.device] = None) -> None:
        """device: not used, as in xformers."""

    def to(self, device: torch.device) -> "LowerTriangularMask":
        return self

    def materialize(self, shape: Tuple[int, ...], dtype: torch.dtype = torch.float32,
                    device: Union[str, torch.device] = "cpu") -> Tensor:
        return _causal_bias(shape, dtype, device, bottom_right=False)

    def add_bias(self, bias: Tensor) -> Any:
        raise _not_available("LowerTriangularMask.add_bias (LowerTriangularMaskWithTensorBias)")


@dataclass
class LowerTriangularFromBottomRightMask(AttentionBias):
    """Causal, aligned bottom-right: the last query sees every key."""

    def to(self, device: torch.device) -> "LowerTriangularFromBottomRightMask":
        return self

    def materialize(self, shape: Tuple[int, ...], dtype: torch.dtype = torch.float32,
                    device: Union[str, torch.device] = "cpu") -> Tensor:
        return _causal_bias(shape, dtype, device, bottom_right=True)

    def make_local_attention(self, window_size: int) -> Any:
        raise _not_available("make_local_attention (LowerTriangularFromBottomRightLocalAttentionMask)")


@dataclass
class _SeqLenInfo:
    """Blocks of a dimension: seqstart_py = [0, end of block 0, end of block 1, ...]."""

    seqstart: Tensor
    max_seqlen: int
    min_seqlen: int
    seqstart_py: List[int]

    def to(self, device: torch.device) -> "_SeqLenInfo":
        return _SeqLenInfo(self.seqstart.to(device), self.max_seqlen, self.min_seqlen, self.seqstart_py)

    def intervals(self) -> Iterator[Tuple[int, int]]:
        yield from zip(self.seqstart_py, self.seqstart_py[1:])

    @classmethod
    def from_seqlens(cls, seqlens: Iterable[int], *, device: Optional[torch.device] = None) -> "_SeqLenInfo":
        lens = [int(n) for n in seqlens]
        starts = [0]
        for n in lens:
            starts.append(starts[-1] + n)
        return cls(torch.tensor(starts, dtype=torch.int32, device=device or "cpu"), max(lens, default=-1),
                   min(lens, default=-1), starts)

    def split(self, x: Tensor, batch_sizes: Optional[Sequence[int]] = None) -> List[Tensor]:
        """[1, total, ...] back into one tensor per input of from_tensor_list (batch_sizes rows each)."""
        total = self.seqstart_py[-1]
        if x.shape[0] != 1 or x.shape[1] != total:
            raise ValueError(f"xformers_npu: expected a tensor of shape (1, {total}, ...), got {tuple(x.shape)}")
        out, block = [], 0
        for rows in batch_sizes or [1] * (len(self.seqstart_py) - 1):
            start, end = self.seqstart_py[block], self.seqstart_py[block + rows]
            out.append(x[:, start:end].reshape(rows, -1, *x.shape[2:]))
            block += rows
        return out


@dataclass
class BlockDiagonalMask(AttentionBias):
    """Queries of block i see the keys of block i only (sequences of different lengths in one batch row)."""

    q_seqinfo: _SeqLenInfo
    k_seqinfo: _SeqLenInfo
    _batch_sizes: Optional[Sequence[int]] = None

    def to(self, device: torch.device) -> "BlockDiagonalMask":
        return type(self)(self.q_seqinfo.to(device), self.k_seqinfo.to(device), self._batch_sizes)

    def _create_block_mask(self, shape: Tuple[int, ...], dtype: torch.dtype = torch.float32,
                           device: Union[str, torch.device] = "cpu") -> Tensor:
        return torch.zeros(shape, dtype=dtype, device=device)

    def materialize(self, shape: Tuple[int, ...], dtype: torch.dtype = torch.float32,
                    device: Union[str, torch.device] = "cpu") -> Tensor:
        mask = torch.full(shape[-2:], -math.inf, dtype=dtype, device=device)
        for (q0, q1), (k0, k1) in zip(self.q_seqinfo.intervals(), self.k_seqinfo.intervals()):
            mask[q0:q1, k0:k1] = self._create_block_mask((q1 - q0, k1 - k0), dtype=dtype, device=device)
        return mask.expand(shape)

    @classmethod
    def from_seqlens(cls, q_seqlen: Sequence[int], kv_seqlen: Optional[Sequence[int]] = None, *,
                     device: Optional[torch.device] = None) -> "BlockDiagonalMask":
        assert kv_seqlen is None or len(q_seqlen) == len(kv_seqlen)
        q_seqinfo = _SeqLenInfo.from_seqlens(q_seqlen, device=device)
        same = kv_seqlen is None or list(q_seqlen) == list(kv_seqlen)
        k_seqinfo = q_seqinfo if same else _SeqLenInfo.from_seqlens(kv_seqlen or [], device=device)
        return cls(q_seqinfo=q_seqinfo, k_seqinfo=k_seqinfo)

    @classmethod
    def from_tensor_list(cls, tensors: Sequence[Tensor]) -> Tuple["BlockDiagonalMask", Tensor]:
        """Tensors [B_i, M_i, ...] -> the mask of their B_i * M_i-long sequences and their concatenation
        [1, sum(B_i * M_i), ...]."""
        lengths: List[int] = []
        for t in tensors:
            lengths += [t.shape[1]] * t.shape[0]
        mask = cls.from_seqlens(lengths)
        mask._batch_sizes = [t.shape[0] for t in tensors]
        return mask, torch.cat([t.flatten(0, 1)[None] for t in tensors], dim=1)

    def split_queries(self, tensor: Tensor) -> Sequence[Tensor]:
        return self.q_seqinfo.split(tensor, self._batch_sizes)

    def split_kv(self, tensor: Tensor) -> Sequence[Tensor]:
        return self.k_seqinfo.split(tensor, self._batch_sizes)

    def split(self, tensor: Tensor) -> Sequence[Tensor]:
        assert self.q_seqinfo is self.k_seqinfo
        return self.q_seqinfo.split(tensor, self._batch_sizes)

    def make_causal(self) -> "BlockDiagonalCausalMask":
        return BlockDiagonalCausalMask(self.q_seqinfo, self.k_seqinfo, self._batch_sizes)

    def make_causal_from_bottomright(self) -> Any:
        raise _not_available("make_causal_from_bottomright (BlockDiagonalCausalFromBottomRightMask)")

    def make_local_attention(self, window_size: int) -> Any:
        raise _not_available("make_local_attention (BlockDiagonalCausalLocalAttentionMask)")


@dataclass
class BlockDiagonalCausalMask(BlockDiagonalMask):
    """BlockDiagonalMask whose blocks are causal, each aligned top-left."""

    def _create_block_mask(self, shape: Tuple[int, ...], dtype: torch.dtype = torch.float32,
                           device: Union[str, torch.device] = "cpu") -> Tensor:
        return _causal_bias(shape, dtype, device, bottom_right=False)


def _attend_torch(q: Tensor, k: Tensor, v: Tensor, scale: float, p: float, causal: Optional[str]) -> Tensor:
    """[B, Mq, H, K] attention with plain torch; causal None, "top-left" or "bottom-right"."""
    sq, sk = q.shape[1], k.shape[1]
    mask, empty = None, None
    if causal is not None:
        mask = torch.ones(sq, sk, dtype=torch.bool, device=q.device).tril(sk - sq if causal == "bottom-right" else 0)
        empty = ~mask.any(-1, keepdim=True)  # rows that see no key: computed finite, then 0
        mask = mask | empty
    out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                         attn_mask=mask, dropout_p=p, scale=scale).transpose(1, 2)
    if empty is not None and bool(empty.any()):
        out = out.masked_fill(empty.view(1, -1, 1, 1), 0.0)
    return out


def _npu_mask(mode: int, device: torch.device, empty_rows: bool) -> Dict[str, Any]:
    if device not in _MASKS:
        _MASKS[device] = torch.triu(torch.ones(2048, 2048, dtype=torch.bool, device=device), diagonal=1)
    args: Dict[str, Any] = {"atten_mask": _MASKS[device], "sparse_mode": mode}
    if empty_rows:
        args["inner_precise"] = 2  # rows that see no key ("invalid rows")
    return args


def _attention(q: Tensor, k: Tensor, v: Tensor, bias: Any, p: float, scale: float) -> Tensor:
    kind = type(bias)
    npu = q.device.type == "npu"
    if bias is None or kind in (LowerTriangularMask, LowerTriangularFromBottomRightMask):
        causal = None if bias is None else ("top-left" if kind is LowerTriangularMask else "bottom-right")
        if not npu:
            return _attend_torch(q, k, v, scale, p, causal)
        mask = {} if causal is None else _npu_mask(2 if causal == "top-left" else 3, q.device,
                                                   causal == "bottom-right" and q.shape[1] > k.shape[1])
        torch_npu = _torch_npu()
        out: Tensor = torch_npu.npu_fusion_attention(q, k, v, q.shape[2], "BSND", scale=scale,
                                                     keep_prob=1.0 - p, **mask)[0]
        return out
    if kind in (BlockDiagonalMask, BlockDiagonalCausalMask):
        if q.shape[0] != 1:
            raise ValueError(f"{kind.__name__} expects inputs of batch size 1, got {q.shape[0]}")
        qs, ks = bias.q_seqinfo.seqstart_py, bias.k_seqinfo.seqstart_py
        causal = "top-left" if kind is BlockDiagonalCausalMask else None
        if npu:
            mask = {} if causal is None else _npu_mask(2, q.device, False)
            torch_npu = _torch_npu()
            out = torch_npu.npu_fusion_attention(q[0], k[0], v[0], q.shape[2], "TND", scale=scale,
                                                 keep_prob=1.0 - p, actual_seq_qlen=qs[1:],
                                                 actual_seq_kvlen=ks[1:], **mask)[0]
            return out[None]
        return torch.cat([_attend_torch(q[:, q0:q1], k[:, k0:k1], v[:, k0:k1], scale, p, causal)
                          for (q0, q1), (k0, k1) in zip(zip(qs, qs[1:]), zip(ks, ks[1:]))], dim=1)
    if isinstance(bias, Tensor):
        raise _not_available("a torch.Tensor attn_bias")
    raise _not_available(f"attn_bias {kind.__name__}")


def memory_efficient_attention(query: Tensor, key: Tensor, value: Tensor,
                               attn_bias: Optional[Union[Tensor, AttentionBias]] = None, p: float = 0.0,
                               scale: Optional[float] = None, *, op: Any = None,
                               output_dtype: Optional[torch.dtype] = None) -> Tensor:
    """query [B, Mq, H, K], key [B, Mkv, H, K], value [B, Mkv, H, Kv] -> [B, Mq, H, Kv]. 3-dim inputs are
    [B, M, K] with one head; 5-dim inputs [B, M, G, H, K] are grouped (K/V expanded over H by the caller)."""
    shape = query.shape
    if query.ndim == 3:
        query, key, value = query[:, :, None], key[:, :, None], value[:, :, None]
    elif query.ndim == 5:
        query, key, value = (t.reshape(t.shape[0], t.shape[1], -1, t.shape[-1]) for t in (query, key, value))
    out = _attention(query, key, value, attn_bias, p, query.shape[-1] ** -0.5 if scale is None else scale)
    out = out.reshape(*shape[:-1], out.shape[-1])
    return out.to(output_dtype) if output_dtype is not None else out


class SwiGLU(nn.Module):
    """xformers.ops.SwiGLU: w3(silu(w1(x)) * w2(x)); w1/w2 packed into w12 unless _pack_weights=False
    (state_dict keys as xformers': w12.weight, w12.bias, w3.* or w1.*, w2.*, w3.*)."""

    def __init__(self, in_features: int, hidden_features: int, out_features: Optional[int] = None,
                 bias: bool = True, *, _pack_weights: bool = True) -> None:
        super().__init__()
        self.in_features = in_features
        self.hidden_features = hidden = hidden_features or in_features
        self.out_features = out_features or in_features
        # Created in xformers' order (w12 or w1, w2; then w3), so a seeded model starts from the same weights.
        self.w12: Optional[nn.Linear] = nn.Linear(in_features, 2 * hidden, bias=bias) if _pack_weights else None
        if not _pack_weights:
            self.w1, self.w2 = (nn.Linear(in_features, hidden, bias=bias) for _ in range(2))
        self.w3 = nn.Linear(hidden, self.out_features, bias=bias)
        self.op: Any = None  # xformers' kernel choice: ignored

    def forward(self, x: Tensor) -> Tensor:
        if self.w12 is not None:
            x12 = self.w12(x)
        else:
            x12 = torch.cat([self.w1(x), self.w2(x)], dim=-1)  # the packed layout: w1 rows, then w2 rows
        if x.device.type == "npu":
            torch_npu = _torch_npu()
            hidden: Tensor = torch_npu.npu_swiglu(x12, dim=-1)
        else:
            x1, x2 = x12.chunk(2, dim=-1)
            hidden = F.silu(x1) * x2
        out: Tensor = self.w3(hidden)
        return out


_attn_bias = types.SimpleNamespace(
    AttentionBias=AttentionBias, LowerTriangularMask=LowerTriangularMask,
    LowerTriangularFromBottomRightMask=LowerTriangularFromBottomRightMask, BlockDiagonalMask=BlockDiagonalMask,
    BlockDiagonalCausalMask=BlockDiagonalCausalMask)
# xformers.ops.fmha: the function, its attn_bias module, and the two masks it re-exports.
fmha = types.SimpleNamespace(memory_efficient_attention=memory_efficient_attention, attn_bias=_attn_bias,
                             AttentionBias=AttentionBias, LowerTriangularMask=LowerTriangularMask,
                             BlockDiagonalMask=BlockDiagonalMask)
