"""torch.compile on the simulated npu: Dynamo's device interface, and Inductor through its CPU code.

Dynamo learns a device from `torch._dynamo.device_interface.register_interface_for_device`; the npu
interface is the CPU's with torch.npu's device calls. Inductor selects its CPU code generators by
`device.type == "cpu"` in many places (scheduler, lowerings, decompositions, wrapper), so an npu
graph registered with them (`register_backend_for_device`) miscompiles outside simple pointwise
functions; instead each npu graph is compiled as a CPU graph and run on the npu tensors' host memory
(banjia.npu_sim.compiled_graphs). The graphs that AOT autograd hands to Inductor are intercepted by
wrapping the `inner_compile` of `torch._inductor.compile_fx.compile_fx`, which `torch.compile`'s
default backend calls. Both are installed when the program imports Dynamo or Inductor (importing
them costs seconds; banjia.npu_sim.import_hooks).
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable

from banjia.npu_sim import compiled_graphs, import_hooks

_WRAPPED = "_banjia_npu_as_cpu"


def _register_device_interface(module: types.ModuleType) -> None:
    from banjia.npu_sim import npu_module

    cpu: Any = module.CpuInterface

    class NpuInterface(cpu):  # type: ignore[misc]
        """Dynamo's view of the simulated npu: the CPU's interface with torch.npu's device calls."""

        current_device = staticmethod(npu_module.current_device)
        set_device = staticmethod(npu_module.set_device)
        device_count = staticmethod(npu_module.device_count)
        synchronize = staticmethod(npu_module.synchronize)
        Stream = npu_module.Stream
        Event = npu_module.Event

        @staticmethod
        def is_triton_capable(device: Any = None) -> bool:
            return False

    module.register_interface_for_device("npu", NpuInterface)


# The simulator's modules that the dispatcher and compiled graphs call: Python frames that Dynamo
# would otherwise try to compile as the program's code when an npu op runs eagerly between graphs.
_DEVICE_MODULES = ("autocast", "backend", "compiled_graphs", "cuda_guard", "devices", "fallback", "frames",
                   "hccl", "memory", "rnn_cells", "stats")


def _skip_device_modules(trace_rules: types.ModuleType) -> None:
    for name in _DEVICE_MODULES:
        trace_rules.add(f"banjia.npu_sim.{name}")


def _npu_as_cpu(inner_compile: Callable[..., Any]) -> Callable[..., Any]:
    """inner_compile that compiles an npu graph as a CPU graph (see compiled_graphs)."""
    if getattr(inner_compile, _WRAPPED, False):
        return inner_compile

    @functools.wraps(inner_compile)
    def compile_graph(gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
        if not compiled_graphs.touches_npu(gm, example_inputs):
            return inner_compile(gm, example_inputs, **kwargs)
        cpu_inputs, npu_outputs = compiled_graphs.as_cpu_graph(gm, list(example_inputs))
        return compiled_graphs.NpuCompiledGraph(inner_compile(gm, cpu_inputs, **kwargs), npu_outputs)

    setattr(compile_graph, _WRAPPED, True)
    return compile_graph


def _wrap_compile_fx(module: types.ModuleType) -> None:
    original = module.compile_fx
    if getattr(original, _WRAPPED, False):
        return
    default_inner = module.compile_fx_inner

    @functools.wraps(original)
    def compile_fx(model: Any, example_inputs: Any, inner_compile: Callable[..., Any] = default_inner,
                   *args: Any, **kwargs: Any) -> Any:
        import torch._functorch.config as functorch_config

        # AOT autograd's cache would hand back the CPU graph without the npu wrapper around it.
        with functorch_config.patch(enable_autograd_cache=False):
            return original(model, example_inputs, _npu_as_cpu(inner_compile), *args, **kwargs)

    setattr(compile_fx, _WRAPPED, True)
    setattr(module, "compile_fx", compile_fx)


def install() -> None:
    """Adapts Dynamo and Inductor to the npu device when (or if) the program imports them."""
    import_hooks.after_import("torch._dynamo.trace_rules", _skip_device_modules)
    import_hooks.after_import("torch._dynamo.device_interface", _register_device_interface)
    import_hooks.after_import("torch._inductor.compile_fx", _wrap_compile_fx)
