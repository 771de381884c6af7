"""The one generic kernel of the npu device: any aten op runs its CPU kernel on CPU aliases.

Registered as the boxed fallback of the PrivateUse1 dispatch key, it receives every op that has no
npu kernel of its own. Arguments are unwrapped (npu tensors to CPU aliases, npu devices to cpu),
the op runs on the CPU, and results are wrapped back (memory.npu_from_cpu). Out= arguments get a
fresh CPU tensor that is copied into the npu output afterwards, because CPU kernels resize outputs.
"""
from __future__ import annotations

from typing import Any

import torch

from banjia.npu_sim import devices, memory, stats

# Ops that take CPU tensors next to npu ones on real devices too (index tensors may live on the host).
_MIXED_DEVICE_OPS = frozenset({"index", "index_put", "index_put_", "_index_put_impl_"})


def _number_as_tensor(value: bool | int | float | complex, tensors: list[torch.Tensor]) -> torch.Tensor:
    """A 0-dim tensor for a Python number passed where the schema says Tensor.

    Boxing hands torch's wrapped-number tensors (a scalar operand turned into a tensor, e.g. by
    `x % 7`) to Python as plain numbers. The dtype chosen here gives the result type the wrapped
    number would have given and keeps a float's full precision where a float tensor decides the type.
    """
    if isinstance(value, bool):
        return torch.tensor(value)
    if isinstance(value, int):
        return torch.tensor(value, dtype=torch.int64)
    if isinstance(value, complex):
        return torch.tensor(value)
    dimensioned = [t.dtype for t in tensors if t.dim() > 0 and (t.is_floating_point() or t.is_complex())]
    scalar = [t.dtype for t in tensors if t.dim() == 0 and t.is_floating_point()]
    dtype = torch.float64 if dimensioned else (scalar[0] if scalar else torch.get_default_dtype())
    return torch.tensor(value, dtype=dtype)


class _Unwrapped:
    """The arguments of one op call with npu tensors replaced by CPU tensors."""

    def __init__(self, op: torch._ops.OpOverload) -> None:
        self.op = op
        self.aliases: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.outs: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.cpu_tensor: torch.Tensor | None = None
        self.npu_indices: set[int] = set()  # of the npu tensors
        self.device_index: int | None = None  # of an npu device argument

    def value(self, value: Any, is_out: bool) -> Any:
        if isinstance(value, torch.Tensor):
            if value.device.type != "npu":
                if value.device.type == "cpu" and value.dim() > 0:
                    self.cpu_tensor = value
                return value
            self.npu_indices.add(value.device.index or 0)
            if is_out:
                fresh = torch.empty(0, dtype=value.dtype)
                self.outs.append((fresh, value))
                self.aliases.append((fresh, value))
                return fresh
            cpu = memory.cpu_alias(value)
            self.aliases.append((cpu, value))
            return cpu
        if isinstance(value, torch.device) and value.type == "npu":
            self.device_index = devices.index(value)
            return torch.device("cpu")
        if isinstance(value, (list, tuple)):
            return type(value)(self.value(item, is_out) for item in value)
        return value

    def check_devices(self) -> None:
        name = self.op._schema.name.split("::")[-1]
        found = [f"npu:{i}" for i in sorted(self.npu_indices)]
        if self.cpu_tensor is not None and self.aliases and name not in _MIXED_DEVICE_OPS:
            found.append("cpu")
        if len(found) > 1:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                               f"devices, {found[0]} and {found[1]}!")

    def result_index(self) -> int:
        """The device of the op's new npu tensors: its npu tensors', else its npu device argument's."""
        if self.npu_indices:
            return min(self.npu_indices)
        return devices.current() if self.device_index is None else self.device_index


def _tensors_in(values: list[Any]) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for value in values:
        items = value if isinstance(value, (list, tuple)) else (value,)
        found.extend(item for item in items if isinstance(item, torch.Tensor))
    return found


def _numbers_as_tensors(op: torch._ops.OpOverload, args: list[Any], kwargs: dict[str, Any]) -> None:
    schema = op._schema.arguments
    tensor_positions = [i for i, a in enumerate(schema) if isinstance(a.type, torch.TensorType)]
    numbers = [i for i in tensor_positions if i < len(args) and isinstance(args[i], (bool, int, float, complex))]
    named = [a.name for a in schema if isinstance(a.type, torch.TensorType)
             and isinstance(kwargs.get(a.name), (bool, int, float, complex))]
    if numbers or named:
        tensors = _tensors_in([*args, *kwargs.values()])
        for i in numbers:
            args[i] = _number_as_tensor(args[i], tensors)
        for name in named:
            kwargs[name] = _number_as_tensor(kwargs[name], tensors)


def _result(value: Any, unwrapped: _Unwrapped, device_index: int) -> Any:
    if isinstance(value, torch.Tensor):
        return memory.npu_from_cpu(value, unwrapped.aliases, device_index)
    if isinstance(value, (list, tuple)):
        return type(value)(_result(item, unwrapped, device_index) for item in value)
    return value


def _copy_back_outputs(outs: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
    for fresh, npu in outs:
        memory.resize_npu(npu, fresh.size())
        memory.cpu_alias(npu).copy_(fresh)


def _sync_mutated_geometry(unwrapped: _Unwrapped) -> None:
    # In-place ops that change sizes or strides (squeeze_, as_strided_, ...) changed the CPU alias.
    fresh_outputs = [fresh for fresh, _ in unwrapped.outs]
    for cpu, npu in unwrapped.aliases:
        if any(cpu is fresh for fresh in fresh_outputs):
            continue
        if (cpu.size(), cpu.stride(), cpu.storage_offset()) != (npu.size(), npu.stride(), npu.storage_offset()):
            memory.set_geometry(npu, npu.untyped_storage(), cpu.storage_offset(), cpu.size(), cpu.stride())


def run_op_on_cpu(op: torch._ops.OpOverload, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> Any:
    """Runs op's CPU kernel on the unwrapped arguments and returns npu results."""
    unwrapped = _Unwrapped(op)
    schema = op._schema.arguments
    cpu_args = [unwrapped.value(arg, i < len(schema) and schema[i].is_out) for i, arg in enumerate(args)]
    out_names = {a.name for a in schema if a.is_out}
    cpu_kwargs = {name: unwrapped.value(arg, name in out_names) for name, arg in kwargs.items()}
    unwrapped.check_devices()
    _numbers_as_tensors(op, cpu_args, cpu_kwargs)
    result = op(*cpu_args, **cpu_kwargs)
    _copy_back_outputs(unwrapped.outs)
    if any(a.alias_info is not None and a.alias_info.is_write for a in schema):
        _sync_mutated_geometry(unwrapped)
    return _result(result, unwrapped, unwrapped.result_index())


def run_on_cpu(op: torch._ops.OpOverload, *args: Any, **kwargs: Any) -> Any:
    """The boxed PrivateUse1 fallback."""
    stats.COUNTS.npu_ops += 1
    return run_op_on_cpu(op, args, kwargs)
