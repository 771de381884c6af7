"""A count sketch of a tensor: what lets `banjia compare` estimate the error between two stats-mode
captures, which hold no tensors.

Each element x_i (in row-major order of the flattened tensor, so the same element on every device)
goes to bucket h(i) mod K with sign s(i) = +1 or -1, and bucket j holds the signed sum of its
elements. For two tensors a and b of the same shape, the sketch is linear, S(a) - S(b) = S(a - b),
and the squared norm of a count sketch is an unbiased estimate of the squared norm of what it
sketches (Charikar, Chen and Farach-Colton, "Finding frequent items in data streams", 2002;
the "AMS" second-moment estimate): so ||S(a) - S(b)|| estimates ||a - b|| with a relative standard
deviation of about sqrt(1/(2K)) on the norm (K = 64: about 9 %), whatever the tensor's size.

The hash is a degree-2 polynomial modulo the Mersenne prime 2^31 - 1, computed in int64 on the
tensor's own device: exact integer arithmetic (no product exceeds 2^62), so CUDA, NPU and CPU put
every element in the same bucket. A polynomial of degree 2 (not a linear one) keeps a strided
pattern of errors (one channel, one head) from landing in a few buckets. Everything here is the
scheme's definition: compare refuses sketches whose scheme differs from its own reading.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict

if TYPE_CHECKING:
    import torch

BUCKETS = 64
PRIME = 2**31 - 1
# Coefficients of h(i) = (A i^2 + B i + C) mod PRIME: fixed values below PRIME, part of the scheme.
A, B, C = 1103515245, 40503, 506952114
# Elements hashed at a time: bounds the int64 temporaries (8 bytes an element) on the device.
CHUNK = 1 << 22

SCHEME: Dict[str, Any] = {"kind": "count-sketch", "buckets": BUCKETS, "prime": PRIME, "a": A, "b": B, "c": C,
                          "order": "row-major"}


def buckets_and_signs(start: int, end: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Bucket (int64) and sign (+1/-1, int64) of elements start..end-1."""
    import torch

    i = torch.arange(start, end, dtype=torch.int64, device=device) % PRIME
    h = ((A * (i * i % PRIME)) % PRIME + (B * i) % PRIME + C) % PRIME
    return h % BUCKETS, 1 - 2 * ((h // BUCKETS) % 2)


# The first chunk's buckets and signs per (device, dtype), made once: most tensors fit in it, and then
# a sketch costs one multiplication and one index_add instead of the hashing.
_FIRST_CHUNK: Dict[tuple[Any, Any], tuple[torch.Tensor, torch.Tensor]] = {}


def _first_chunk(device: torch.device, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    key = (device, dtype)
    if key not in _FIRST_CHUNK:
        bucket, sign = buckets_and_signs(0, CHUNK, device)
        _FIRST_CHUNK[key] = bucket, sign.to(dtype)
    return _FIRST_CHUNK[key]


def device_sketch(flat: torch.Tensor) -> torch.Tensor:
    """The BUCKETS signed bucket sums of a 1-d real tensor, in its dtype, on its device."""
    import torch

    out = torch.zeros(BUCKETS, dtype=flat.dtype, device=flat.device)
    for start in range(0, flat.numel(), CHUNK):
        end = min(start + CHUNK, flat.numel())
        if start == 0:
            bucket, sign = (t[:end] for t in _first_chunk(flat.device, flat.dtype))
        else:
            bucket, int_sign = buckets_and_signs(start, end, flat.device)
            sign = int_sign.to(flat.dtype)
        out.index_add_(0, bucket, flat[start:end] * sign)
    return out
