"""Comparing banjia's kernel shims (data/shims) with CPU stand-ins of the original CUDA libraries
(tests/fixtures/cuda_refs): forward results and gradients of the same inputs, and optimizer parameters after
the same steps. A case builds its inputs on the CPU from a fixed seed, runs the stand-in (the ORIGINAL
library's semantics) on CPU copies and the shim on copies placed on the device under test: "cpu" for the
plain-torch path (pytest, in-process), "npu" for the torch_npu path (under `python -m banjia.npu_sim`)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Sequence

import torch
from torch.testing import assert_close

REPO = Path(__file__).resolve().parents[2]
SHIMS = REPO / "data" / "shims"
CUDA_REFS = REPO / "tests" / "fixtures" / "cuda_refs"

Case = Callable[[torch.device], None]
CASES: Dict[str, Case] = {}
# (rtol, atol) per dtype: the stand-ins loop over heads and rows in float32, the shims call fused ops.
TOLERANCE = {torch.float32: (1e-4, 2e-5), torch.bfloat16: (3e-2, 3e-2), torch.float16: (3e-3, 3e-3)}


def import_paths() -> None:
    """Make the shims and the stand-ins importable (flash_attn, xformers, apex are the stand-ins here)."""
    for path in (str(CUDA_REFS), str(SHIMS)):
        if path not in sys.path:
            sys.path.insert(0, path)


def case(fn: Case) -> Case:
    CASES[fn.__name__] = fn
    return fn


def seeded(*shapes: Sequence[int], dtype: torch.dtype = torch.float32, seed: int = 0) -> List[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g).to(dtype) for shape in shapes]


def leaves(values: Sequence[Any], device: torch.device) -> List[Any]:
    """Each floating tensor as a fresh leaf on `device` that requires grad; other values as they are
    (integer tensors moved to `device`)."""
    out: List[Any] = []
    for v in values:
        if isinstance(v, torch.Tensor):
            v = v.detach().to(device).clone()
            if v.is_floating_point():
                v.requires_grad_(True)
        out.append(v)
    return out


def _flat(value: Any) -> Iterator[Any]:
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def close(actual: Any, expected: Any, what: str) -> None:
    """Equal within the dtype's tolerance, same dtype and shape; non-tensors equal."""
    for a, e in zip(_flat(actual), _flat(expected), strict=True):
        if isinstance(e, torch.Tensor):
            assert isinstance(a, torch.Tensor), (what, a)
            rtol, atol = TOLERANCE.get(e.dtype, (0.0, 0.0))
            assert_close(a.detach().cpu(), e.detach(), rtol=rtol, atol=atol, msg=lambda m: f"{what}: {m}")
        else:
            assert a == e, (what, a, e)


def _backward(outputs: Any, device: torch.device) -> None:
    """Backward of sum(output * fixed random cotangent) over the floating outputs that carry a gradient."""
    g = torch.Generator().manual_seed(1234)
    total = None
    for o in _flat(outputs):
        if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad:
            cot = torch.randn(o.shape, generator=g).to(device=device, dtype=o.dtype)
            term = (o * cot).float().sum()
            total = term if total is None else total + term
    assert total is not None, "no output carries a gradient"
    total.backward()


def check(ref: Callable[..., Any], shim: Callable[..., Any], inputs: Sequence[Any], device: torch.device,
          grad: bool = True) -> None:
    """ref on CPU leaves, shim on device leaves: outputs equal, then gradients of every floating input."""
    cpu = torch.device("cpu")
    ref_in, shim_in = leaves(inputs, cpu), leaves(inputs, device)
    ref_out, shim_out = ref(*ref_in), shim(*shim_in)
    close(shim_out, ref_out, "forward")
    if not grad:
        return
    _backward(ref_out, cpu)
    _backward(shim_out, device)
    for i, (r, s) in enumerate(zip(ref_in, shim_in)):
        if isinstance(r, torch.Tensor) and r.requires_grad:
            assert (r.grad is None) == (s.grad is None), f"gradient of input {i}"
            if r.grad is not None:
                close(s.grad, r.grad, f"gradient of input {i}")


def check_module(ref: torch.nn.Module, shim: torch.nn.Module, inputs: Sequence[Any], device: torch.device) -> None:
    """Same state_dict keys; the shim loads the stand-in's weights; outputs, input and weight gradients equal."""
    assert list(ref.state_dict()) == list(shim.state_dict()), (list(ref.state_dict()), list(shim.state_dict()))
    shim.load_state_dict(ref.state_dict())
    shim.to(device)
    check(ref, shim, inputs, device)
    for (name, r), (_, s) in zip(ref.named_parameters(), shim.named_parameters()):
        close(s.grad, r.grad, f"gradient of {name}")


def check_optimizer(ref_cls: Any, shim_cls: Any, kwargs: Dict[str, Any], device: torch.device, steps: int = 4,
                    dtype: torch.dtype = torch.float32) -> None:
    """Two parameter groups trained the same way by both optimizers (backward, step, zero_grad); the
    parameters stay equal after every step."""
    shapes = [(5, 3), (7,), (4, 4)]
    init = seeded(*shapes, dtype=dtype, seed=7)
    targets = seeded(*shapes, seed=8)
    ref_p = [torch.nn.Parameter(t.clone()) for t in init]
    shim_p = [torch.nn.Parameter(t.clone().to(device)) for t in init]
    groups = lambda ps: [{"params": ps[:2]}, {"params": ps[2:], "lr": kwargs.get("lr", 1e-3) * 0.5}]  # noqa: E731
    ref_opt, shim_opt = ref_cls(groups(ref_p), **kwargs), shim_cls(groups(shim_p), **kwargs)
    for step in range(steps):
        for params, opt in ((ref_p, ref_opt), (shim_p, shim_opt)):
            loss = sum(((p.float() - t.to(p.device)) ** 2 * (1.0 + step)).sum() + p.float().sin().sum()
                       for p, t in zip(params, targets))
            loss.backward()
            opt.step()
            opt.zero_grad()
        for i, (r, s) in enumerate(zip(ref_p, shim_p)):
            close(s, r, f"parameter {i} after step {step + 1}")
