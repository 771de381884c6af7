"""Inductor on npu graphs: each graph is compiled as a CPU graph and run on the npu memory.

Inductor compiles what AOT autograd hands it (a functional aten graph per forward, backward or
inference pass) in `inner_compile`. For a graph that touches npu, the graph is rewritten to the
CPU before that call: npu devices in the nodes' arguments become cpu, npu tensors held as graph
attributes become their CPU aliases, the example inputs become CPU fake tensors with the same
(symbolic) sizes and strides, and the nodes' fake values are computed again from those. Inductor
then generates its CPU code (C++ kernels, calls of aten ops for the rest). At run time the compiled
graph gets CPU aliases of its npu inputs, which share the npu tensors' host memory, so mutations of
inputs reach the npu tensors; the outputs that were npu tensors in the original graph become npu
tensors again: the input they alias, a view of an input's npu storage, or a new npu storage that
owns the CPU result's memory (banjia.npu_sim.memory.npu_from_cpu).
"""
from __future__ import annotations

from typing import Any, Callable

import torch
import torch.fx

from banjia.npu_sim import memory, stats


def _is_npu(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.device.type == "npu"
    return isinstance(value, torch.device) and value.type == "npu"


def _on_cpu(value: Any) -> Any:
    """value with npu devices replaced by the cpu, in nested lists, tuples and dicts."""
    if isinstance(value, torch.device) and value.type == "npu":
        return torch.device("cpu")
    if isinstance(value, (list, tuple)):
        return type(value)(_on_cpu(item) for item in value)
    if isinstance(value, dict):
        return {key: _on_cpu(item) for key, item in value.items()}
    return value


def _graph_modules(gm: torch.fx.GraphModule) -> list[torch.fx.GraphModule]:
    return [m for m in gm.modules() if isinstance(m, torch.fx.GraphModule)]


def touches_npu(gm: torch.fx.GraphModule, example_inputs: Any) -> bool:
    if any(_is_npu(value) for value in example_inputs):
        return True
    for module in _graph_modules(gm):
        for node in module.graph.nodes:
            found: list[Any] = []
            torch.fx.node.map_aggregate((node.args, node.kwargs, node.meta.get("val")), found.append)
            if any(_is_npu(value) for value in found):
                return True
    return False


def _npu_outputs(gm: torch.fx.GraphModule) -> list[int | None]:
    """For each output of the graph (flattened): its npu device index, None when not on npu."""
    output = gm.graph.find_nodes(op="output")[0]
    indices: list[int | None] = []
    for item in torch.utils._pytree.tree_leaves(output.args[0]):
        value: Any = item.meta.get("val") if isinstance(item, torch.fx.Node) else item
        indices.append((value.device.index or 0) if _is_npu(value) else None)
    return indices


def _cpu_fake(value: Any, fake_mode: Any) -> Any:
    if not _is_npu(value):
        return value
    with fake_mode:
        made = torch.empty_strided(value.size(), value.stride(), dtype=value.dtype, device="cpu")
        if value.storage_offset() != 0:
            made = made.as_strided(value.size(), value.stride(), value.storage_offset())
    return made


def _rewrite_to_cpu(gm: torch.fx.GraphModule) -> None:
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():  # the aliases are real tensors; the compiler runs under its fake mode
        _replace_npu_attributes(gm)
    for module in _graph_modules(gm):
        for node in module.graph.nodes:
            node.args = _on_cpu(node.args)
            node.kwargs = _on_cpu(node.kwargs)
        module.recompile()


def _replace_npu_attributes(gm: torch.fx.GraphModule) -> None:
    for module in _graph_modules(gm):
        for name, value in list(vars(module).items()):
            if isinstance(value, torch.Tensor) and _is_npu(value):
                setattr(module, name, memory.cpu_alias(value))
        for name, buffer in list(module.named_buffers(recurse=False)):
            if _is_npu(buffer):
                module.register_buffer(name, memory.cpu_alias(buffer))


def as_cpu_graph(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> tuple[list[Any], list[int | None]]:
    """Rewrites gm (owned by the compiler) to the CPU; returns the CPU example inputs and, per
    output, its npu device index in the original graph (None when not on npu)."""
    from torch._guards import detect_fake_mode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    npu_outputs = _npu_outputs(gm)
    fake_mode = detect_fake_mode(example_inputs)
    cpu_inputs = [_cpu_fake(value, fake_mode) for value in example_inputs]
    _rewrite_to_cpu(gm)
    prop: Any = FakeTensorProp(gm, mode=fake_mode)
    prop.propagate_dont_convert_inputs(*cpu_inputs)
    return cpu_inputs, npu_outputs


class NpuCompiledGraph:
    """A compiled CPU graph called with npu tensors: see the module docstring."""

    def __init__(self, compiled: Callable[[list[Any]], Any], npu_outputs: list[int | None]) -> None:
        # An instance attribute: the wrappers AOT autograd puts around the callable copy __dict__.
        self._boxed_call = True
        self.compiled = compiled
        self.npu_outputs = npu_outputs

    def __call__(self, args: list[Any]) -> Any:
        stats.COUNTS.npu_graphs += 1
        aliases: list[tuple[torch.Tensor, torch.Tensor]] = []
        cpu_args: list[Any] = []
        for value in args:
            if isinstance(value, torch.Tensor) and _is_npu(value):
                alias = memory.cpu_alias(value)
                aliases.append((alias, value))
                value = alias
            cpu_args.append(value)
        args.clear()  # the boxed calling convention: the callee may free its inputs
        outputs = self.compiled(cpu_args)
        converted: list[Any] = []
        for output, device_index in zip(outputs, self.npu_outputs):
            if device_index is not None and isinstance(output, torch.Tensor) and not _is_npu(output):
                made = memory.npu_from_cpu(output, aliases, device_index)
                aliases.append((output, made))  # later outputs may be views of this one
                output = made
            converted.append(output)
        return type(outputs)(converted) if isinstance(outputs, tuple) else converted

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)
