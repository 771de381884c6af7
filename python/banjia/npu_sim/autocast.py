"""Autocast for the npu device: Python kernels for the AutocastPrivateUse1 dispatch key.

torch registers no autocast kernels for PrivateUse1 (a C++ backend such as torch_npu brings its
own), so `torch.autocast("npu")` would fail on the first op. The ops and their cast policies are
torch_npu's (autocast_ops.toml); the casting rules mirror torch's CastPolicy implementations
(pytorch : aten/src/ATen/autocast_mode.h): only floating-point npu tensors other than float64 are
cast, and each op then runs with the autocast key excluded.
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Callable

import torch

_POLICY_FILE = Path(__file__).with_name("autocast_ops.toml")
_libraries: list[Any] = []


def load_policy() -> dict[str, Any]:
    with _POLICY_FILE.open("rb") as f:
        return tomllib.load(f)


def _eligible(value: object) -> bool:
    return (isinstance(value, torch.Tensor) and value.device.type == "npu" and value.is_floating_point()
            and value.dtype != torch.float64)


def _cast(value: Any, dtype: torch.dtype) -> Any:
    if _eligible(value) and value.dtype != dtype:
        return value.to(dtype)
    if isinstance(value, (list, tuple)) and any(isinstance(item, torch.Tensor) for item in value):
        return type(value)(_cast(item, dtype) for item in value)
    return value


def _tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for value in (*args, *kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        found.extend(item for item in items if isinstance(item, torch.Tensor))
    return found


def _call(op: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    keys = torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, "AutocastPrivateUse1"))
    with torch._C._ExcludeDispatchKeyGuard(keys):
        return op(*args, **kwargs)


def _cast_all(op: torch._ops.OpOverload, dtype_of: Callable[[], torch.dtype]) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        dtype = dtype_of()
        return _call(op, tuple(_cast(a, dtype) for a in args), {k: _cast(v, dtype) for k, v in kwargs.items()})
    return kernel


def _set_opt_dtype(op: torch._ops.OpOverload) -> Callable[..., Any]:
    names = [a.name for a in op._schema.arguments]
    position = names.index("dtype")

    def kernel(*args: Any, **kwargs: Any) -> Any:
        tensors = _tensors(args, kwargs)
        if tensors and _eligible(tensors[0]):
            if position < len(args):
                if args[position] is None:
                    args = (*args[:position], torch.float32, *args[position + 1:])
            elif kwargs.get("dtype") is None:
                kwargs = {**kwargs, "dtype": torch.float32}
        return _call(op, args, kwargs)
    return kernel


def _append_dtype(op: torch._ops.OpOverload, with_dtype: torch._ops.OpOverload) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        tensors = _tensors(args, kwargs)
        if tensors and _eligible(tensors[0]):
            return _call(with_dtype, args, {**kwargs, "dtype": torch.float32})
        return _call(op, args, kwargs)
    return kernel


def _promote(op: torch._ops.OpOverload) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        widest = torch.get_autocast_dtype("npu")
        for tensor in _tensors(args, kwargs):
            if _eligible(tensor) and tensor.dtype == torch.float32:
                widest = torch.float32
        return _call(op, tuple(_cast(a, widest) for a in args), {k: _cast(v, widest) for k, v in kwargs.items()})
    return kernel


def _banned(message: str) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)
    return kernel


def _overload(name: str) -> torch._ops.OpOverload | None:
    base, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, base, None)
    if packet is None:
        return None
    found: torch._ops.OpOverload | None = getattr(packet, overload or "default", None)
    return found


def _appending(with_dtype: torch._ops.OpOverload) -> Callable[[torch._ops.OpOverload], Callable[..., Any]]:
    return lambda op: _append_dtype(op, with_dtype)


def kernels() -> dict[str, Callable[..., Any]]:
    """Op name -> autocast kernel, for every op of the policy that this torch has."""
    policy = load_policy()
    table: dict[str, Callable[..., Any]] = {}

    def add(name: str, make: Callable[[torch._ops.OpOverload], Callable[..., Any]]) -> None:
        op = _overload(name)
        if op is not None:  # the list follows torch_npu's torch; an op this torch lacks is skipped
            table[name] = make(op)

    for name in policy["lower_precision_fp"]["ops"]:
        add(name, lambda op: _cast_all(op, lambda: torch.get_autocast_dtype("npu")))
    for name in policy["fp32"]["ops"]:
        add(name, lambda op: _cast_all(op, lambda: torch.float32))
    for name in policy["fp32_set_opt_dtype"]["ops"]:
        add(name, _set_opt_dtype)
    for name, target in policy["fp32_append_dtype"]["ops"].items():
        with_dtype = _overload(target)
        if with_dtype is not None:
            add(name, _appending(with_dtype))
    for name in policy["promote"]["ops"]:
        add(name, _promote)
    for name in policy["banned"]["ops"]:
        add(name, lambda op: _banned(policy["banned"]["message"]))
    return table


def install() -> None:
    if _libraries:
        return
    library: Any = torch.library.Library
    fallthrough = library("_", "IMPL")
    fallthrough.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
    ops = library("aten", "IMPL")
    for name, kernel in kernels().items():
        ops.impl(name, kernel, "AutocastPrivateUse1")
    _libraries.extend([fallthrough, ops])
