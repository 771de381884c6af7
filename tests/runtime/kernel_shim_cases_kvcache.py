"""flash_attn_npu.flash_attn_with_kvcache against the flash-attn stand-in: the output and the caches it
writes in place, for decoding (one new token) and chunked prefill, GQA, rows picked by cache_batch_idx,
left padding, rotary (GPT-NeoX halves and GPT-J pairs; causal, and non-causal with every query at one
position), a window, and attention to the cache alone."""
from __future__ import annotations

from typing import Any, Optional

import pytest
import torch

from kernel_shim_harness import case, close, import_paths, seeded

import_paths()
import flash_attn  # noqa: E402  (the stand-in)
import flash_attn_npu as shim  # noqa: E402


def _kvcache(device: torch.device, sq: int, new: int, lens: Any, rotary: Optional[int] = None,
             batch_idx: Optional[list[int]] = None, leftpad: Optional[list[int]] = None, **kwargs: Any) -> None:
    q, k, v = seeded((2, sq, 4, 16), (2, new, 2, 16), (2, new, 2, 16), seed=5)
    k_cache, v_cache = seeded((3, 12, 2, 16), (3, 12, 2, 16), seed=6)
    extra: dict[str, Any] = dict(kwargs)
    if isinstance(lens, list):
        extra["cache_seqlens"] = torch.tensor(lens, dtype=torch.int32)
    elif lens is not None:
        extra["cache_seqlens"] = lens
    if batch_idx is not None:
        extra["cache_batch_idx"] = torch.tensor(batch_idx, dtype=torch.int32)
    if leftpad is not None:
        extra["cache_leftpad"] = torch.tensor(leftpad, dtype=torch.int32)
    if rotary is not None:
        angles = torch.arange(16.0)[:, None] * (1.0 / 10000 ** (torch.arange(0, rotary, 2) / rotary))[None, :]
        extra.update(rotary_cos=angles.cos(), rotary_sin=angles.sin())

    def on(dev: torch.device) -> dict[str, Any]:
        return {key: value.to(dev) if isinstance(value, torch.Tensor) else value for key, value in extra.items()}
    ref_caches = (k_cache.clone(), v_cache.clone())
    got_caches = (k_cache.clone().to(device), v_cache.clone().to(device))
    with_new = new > 0
    ref = flash_attn.flash_attn_with_kvcache(q, *ref_caches, k if with_new else None, v if with_new else None,
                                             **on(torch.device("cpu")))
    got = shim.flash_attn_with_kvcache(q.to(device), *got_caches, k.to(device) if with_new else None,
                                       v.to(device) if with_new else None, **on(device))
    close(got, ref, "output")
    close(got_caches[0], ref_caches[0], "k_cache after the call")
    close(got_caches[1], ref_caches[1], "v_cache after the call")
    if with_new:
        assert not torch.equal(ref_caches[0], k_cache), "the case wrote nothing into the cache"


@case
def kvcache_decode_gqa(device: torch.device) -> None:
    _kvcache(device, 1, 1, [3, 5], causal=True)
    _kvcache(device, 1, 1, 4, causal=True)  # one int for every row


@case
def kvcache_prefill_chunk_rows_and_left_padding(device: torch.device) -> None:
    _kvcache(device, 3, 3, [2, 6], batch_idx=[2, 0], leftpad=[1, 0], causal=True)
    _kvcache(device, 3, 3, [2, 6], causal=False, softmax_scale=0.3)


@case
def kvcache_rotary(device: torch.device) -> None:
    _kvcache(device, 2, 2, [3, 5], rotary=8, causal=True, rotary_interleaved=False)
    _kvcache(device, 2, 2, [3, 5], rotary=16, causal=True, rotary_interleaved=True)
    _kvcache(device, 2, 2, [3, 5], rotary=8, causal=False, rotary_interleaved=False)  # q at cache_seqlens


@case
def kvcache_window_and_cache_only(device: torch.device) -> None:
    _kvcache(device, 2, 2, [4, 7], causal=True, window_size=(2, 0))
    _kvcache(device, 2, 0, [4, 7], causal=True)  # no new keys: attend to cache[:cache_seqlens]
    _kvcache(device, 2, 0, None)  # no cache_seqlens: the whole cache


@case
def kvcache_refuses_what_it_cannot_compute(device: torch.device) -> None:
    q = torch.zeros(1, 1, 2, 16, device=device)
    cache = torch.zeros(1, 4, 2, 16, device=device)
    with pytest.raises(NotImplementedError, match="return_softmax_lse"):
        shim.flash_attn_with_kvcache(q, cache, cache, cache_seqlens=1, return_softmax_lse=True)
    with pytest.raises(NotImplementedError, match="block_table"):
        shim.flash_attn_with_kvcache(q, cache, cache, block_table=torch.zeros(1, 1, dtype=torch.int32))
    with pytest.raises(NotImplementedError, match="softcap"):
        shim.flash_attn_with_kvcache(q, cache, cache, cache_seqlens=1, softcap=30.0)
