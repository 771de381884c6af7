"""torch_npu's fused elementwise and normalisation kernels on the simulated npu.

The kernels banjia's third-party-kernel rewrites point to (data/rules: apex and CUDA-extension
RMSNorm, rotary and SwiGLU kernels) as compositions of torch ops, so autograd differentiates them
and every op they run on npu tensors is counted like any other op (banjia.npu_sim.fallback). The
contracts are torch_npu's documentation (Ascend/op-plugin docs/zh/custom_APIs/torch_npu/*.md) and,
for output shapes, op-plugin's kernels; each function names its source. Where torch_npu would
refuse an argument the simulator raises RuntimeError (as torch_npu's TORCH_CHECK does); where
torch_npu does something the simulator does not, NotImplementedError. Nothing is approximated.
"""
from __future__ import annotations

import functools
from typing import Callable, ParamSpec, TypeVar

import torch

__all__ = ["npu_rms_norm", "npu_rotary_mul", "npu_swiglu"]

# The dtypes every one of these kernels documents; float64 is not among them on the NPU.
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


Params = ParamSpec("Params")
Result = TypeVar("Result")


def outside_autocast(kernel: Callable[Params, Result]) -> Callable[Params, Result]:
    """torch_npu registers no autocast policy for these kernels (Ascend/pytorch AutoCastOps.cpp):
    inside torch.autocast they compute in the dtypes they are given. Their compositions here must
    not have each matmul cast to the autocast dtype."""
    @functools.wraps(kernel)
    def run(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        with torch.autocast("npu", enabled=False):
            return kernel(*args, **kwargs)
    return run


def require_npu(api: str, **tensors: torch.Tensor | None) -> None:
    """torch_npu's kernels are registered for npu tensors only: a CPU tensor fails at dispatch."""
    for name, tensor in tensors.items():
        if tensor is not None and tensor.device.type != "npu":
            raise RuntimeError(f"torch_npu.{api}: {name} is on {tensor.device}; the kernel takes npu tensors only")


def require_dtype(api: str, **tensors: torch.Tensor | None) -> None:
    for name, tensor in tensors.items():
        if tensor is not None and tensor.dtype not in _DTYPES:
            raise RuntimeError(f"torch_npu.{api}: {name} has dtype {tensor.dtype}; "
                               "torch_npu supports float16, bfloat16 and float32")


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The NPU kernels compute float16/bfloat16 inputs in float32 and round the result once."""
    return torch.promote_types(dtype, torch.float32)


@outside_autocast
def npu_rms_norm(input: torch.Tensor, gamma: torch.Tensor,
                 epsilon: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """y = x / sqrt(mean(x^2) + eps) * gamma over the trailing gamma.dim() dimensions of x.

    Source: op-plugin torch_npu-npu_rms_norm.md (gamma's shape is x.shape[n:]; rstd is float32 with
    the shape of x whose normalised dimensions are 1, as op_infer::rms_norm_npu_output_size makes
    it; gamma may be float32 next to a float16/bfloat16 x). rstd is returned detached: torch_npu's
    backward (npu_rms_norm_backward) takes the gradient of y only.
    """
    require_npu("npu_rms_norm", input=input, gamma=gamma)
    require_dtype("npu_rms_norm", input=input, gamma=gamma)
    if gamma.dtype != input.dtype and gamma.dtype != torch.float32:
        raise RuntimeError(f"torch_npu.npu_rms_norm: gamma dtype {gamma.dtype} must be {input.dtype} or float32")
    if gamma.dim() == 0 or gamma.dim() > input.dim() or input.shape[input.dim() - gamma.dim():] != gamma.shape:
        raise RuntimeError(f"torch_npu.npu_rms_norm: gamma shape {tuple(gamma.shape)} must equal the trailing "
                           f"dimensions of input shape {tuple(input.shape)}")
    dims = tuple(range(input.dim() - gamma.dim(), input.dim()))
    x = input.to(compute_dtype(input.dtype))
    rstd = torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + epsilon)
    y = (x * rstd * gamma.to(x.dtype)).to(input.dtype)
    return y, rstd.detach().to(torch.float32)


def _broadcasts_to(shape: torch.Size, target: torch.Size) -> bool:
    if len(shape) > len(target):
        return False
    fits = all(size in (1, wanted) for size, wanted in zip(reversed(shape), reversed(target)))
    return fits and shape[-1] == target[-1]


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


def _rotate_interleave(x: torch.Tensor) -> torch.Tensor:
    even, odd = x[..., ::2], x[..., 1::2]
    return torch.stack((-odd, even), dim=-1).flatten(-2)


@outside_autocast
def npu_rotary_mul(input: torch.Tensor, r1: torch.Tensor, r2: torch.Tensor, rotary_mode: str = "half",
                   rotate: torch.Tensor | None = None) -> torch.Tensor:
    """output = x * r1 + rotate(x) * r2 (r1 = cos, r2 = sin, broadcast to x).

    Source: op-plugin torch_npu-npu_rotary_mul.md. rotary_mode 'half': rotate(x) = cat(-x2, x1) of
    the two halves of the last dimension; 'interleave': the pairs (x[2k], x[2k+1]) become
    (-x[2k+1], x[2k]). rotary_mode exists since Ascend Extension for PyTorch 7.0.0 (earlier releases
    have npu_rotary_mul(x, r1, r2), which is 'half'); `rotate` (rotate(x) = x @ rotate, forward only
    on torch_npu) is newer. 'quarter' and 'interleave-half' are Ascend 950 modes the simulator
    does not provide.
    """
    require_npu("npu_rotary_mul", input=input, r1=r1, r2=r2, rotate=rotate)
    require_dtype("npu_rotary_mul", input=input, r1=r1, r2=r2, rotate=rotate)
    if rotary_mode in ("quarter", "interleave-half"):
        raise NotImplementedError(f"torch_npu.npu_rotary_mul: rotary_mode={rotary_mode!r} (an Ascend 950 mode) "
                                  "is not provided by the simulator")
    if rotary_mode not in ("half", "interleave"):
        raise RuntimeError(f"torch_npu.npu_rotary_mul: rotary_mode must be 'half' or 'interleave', got {rotary_mode!r}")
    if input.dim() not in (3, 4) or input.size(-1) % 2:
        raise RuntimeError("torch_npu.npu_rotary_mul: input must be 3- or 4-dimensional with an even last "
                           f"dimension, got shape {tuple(input.shape)}")
    for name, factor in (("r1", r1), ("r2", r2)):
        if not _broadcasts_to(factor.shape, input.shape):
            raise RuntimeError(f"torch_npu.npu_rotary_mul: {name} shape {tuple(factor.shape)} does not broadcast "
                               f"to input shape {tuple(input.shape)}")
    dtype = compute_dtype(input.dtype)
    x = input.to(dtype)
    if rotate is not None:
        tensors = (input, r1, r2, rotate)
        if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
            raise RuntimeError("torch_npu.npu_rotary_mul: backward is not supported when rotate is given "
                               "(torch_npu computes the rotate form forward only)")
        rotated = x @ rotate.to(dtype)
    else:
        rotated = _rotate_half(x) if rotary_mode == "half" else _rotate_interleave(x)
    return (x * r1.to(dtype) + rotated * r2.to(dtype)).to(input.dtype)


@outside_autocast
def npu_swiglu(input: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """swiglu(x) = swish(A) * B = A * sigmoid(A) * B, A the first and B the second half along dim.

    Source: op-plugin torch_npu-npu_swiglu.md ("A表示前半部分张量，B表示后半部分张量": A is the first
    half, the gated one).
    """
    require_npu("npu_swiglu", input=input)
    require_dtype("npu_swiglu", input=input)
    if not -input.dim() <= dim < input.dim() or input.size(dim) % 2:
        raise RuntimeError(f"torch_npu.npu_swiglu: dimension {dim} of shape {tuple(input.shape)} "
                           "must exist and have an even size")
    a, b = input.to(compute_dtype(input.dtype)).chunk(2, dim=dim)
    return (torch.nn.functional.silu(a) * b).to(input.dtype)
