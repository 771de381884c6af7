"""The simulated device: torch's PrivateUse1 backend renamed to "npu" and driven from Python.

Tensors live in host memory (banjia.npu_sim.memory); every aten op without a kernel below runs its
CPU kernel through the boxed fallback (banjia.npu_sim.fallback). The kernels here are the ops that
torch implements for every device in a way that cannot work for this one: allocation, copies,
resizing and set_, which touch storages; _to_copy, which would ask for pinned host memory; and
convolution, which ATen sends to convolution_overrideable for devices other than CPU and CUDA.

The Python PrivateUse1 hooks (torch/csrc/acc/Module.cpp) forward only is_available, is_built and
has_primary_context to Python: there is no pinned-memory allocator, no device allocator and no
generator. Hence Tensor.pin_memory/is_pinned and torch.UntypedStorage(device="npu") are replaced
here, and torch.Generator(device="npu") stays unsupported.

Why real memory instead of a wrapper that keeps a CPU tensor in a Python attribute (the layout of
torch's test/test_privateuseone_python_backend.py): torch's C++ code makes views, runs `.data = `,
`set_` and storage copies (torch.save) on TensorImpls and storages directly, without calling any
kernel. With the data in the storage all of those stay consistent; an attribute would go stale.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import torch
from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

from banjia.npu_sim import (
    accelerator, autocast, compile, cuda_guard, device_arguments, devices, fallback, hccl, memory, npu_amp,
    npu_module, rnn_cells, stats,
)

_libraries: list[Any] = []
_PINNED = "_banjia_pinned"


def _is_npu(value: object) -> bool:
    return isinstance(value, torch.Tensor) and value.device.type == "npu"


def _host(tensor: torch.Tensor) -> torch.Tensor:
    return memory.cpu_alias(tensor) if _is_npu(tensor) else tensor


def empty_memory_format(size: Any, dtype: torch.dtype | None = None, layout: Any = None,
                        device: torch.device | None = None, pin_memory: bool | None = None,
                        memory_format: torch.memory_format | None = None) -> torch.Tensor:
    return memory.empty_npu(size, dtype, devices.index(device), memory_format=memory_format)


def empty_strided(size: Any, stride: Any, dtype: torch.dtype | None = None, layout: Any = None,
                  device: torch.device | None = None, pin_memory: bool | None = None) -> torch.Tensor:
    return memory.empty_npu(size, dtype, devices.index(device), stride=stride)


def copy_from(src: torch.Tensor, dst: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    _host(dst).copy_(_host(src))
    return dst


def copy_from_and_resize(src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
    if _is_npu(dst):
        memory.resize_npu(dst, src.size())
    else:
        dst.resize_(src.size())
    return copy_from(src, dst)


def to_copy(tensor: torch.Tensor, dtype: torch.dtype | None = None, layout: Any = None,
            device: torch.device | None = None, pin_memory: bool | None = None,
            non_blocking: bool = False, memory_format: torch.memory_format | None = None) -> torch.Tensor:
    source = _host(tensor)
    copy = source.to(dtype=dtype or source.dtype, memory_format=memory_format or torch.preserve_format,
                     copy=True)
    target = device if device is not None else tensor.device
    return memory.npu_from_cpu(copy, [], devices.index(target)) if target.type == "npu" else copy


def resize(tensor: torch.Tensor, size: Any, memory_format: Any = None) -> torch.Tensor:
    return memory.resize_npu(tensor, size)


def set_storage_offset(tensor: torch.Tensor, source: torch.UntypedStorage, offset: Any, size: Any,
                       stride: Any = ()) -> torch.Tensor:
    memory.set_geometry(tensor, source, offset, size, stride)
    return tensor


def set_storage(tensor: torch.Tensor, source: torch.UntypedStorage) -> torch.Tensor:
    memory.set_geometry(tensor, source, 0, [source.nbytes() // tensor.element_size()], [1])
    return tensor


def set_tensor(tensor: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    memory.set_geometry(tensor, source.untyped_storage(), source.storage_offset(), source.size(),
                        source.stride())
    return tensor


def set_empty(tensor: torch.Tensor) -> torch.Tensor:
    storage = memory.npu_storage_owned_by(torch.empty(0, dtype=torch.uint8).untyped_storage(),
                                          tensor.device.index or 0)
    memory.set_geometry(tensor, storage, 0, [0], [1])
    return tensor


def record_stream(tensor: torch.Tensor, stream: Any) -> None:
    return None  # one in-order "stream": no memory has to outlive work queued elsewhere


def convolution(*args: Any) -> Any:
    return fallback.run_op_on_cpu(torch.ops.aten.convolution.default, args, {})


def convolution_backward(grad: torch.Tensor, tensor: torch.Tensor, weight: torch.Tensor, stride: Any,
                         padding: Any, dilation: Any, transposed: bool, output_padding: Any, groups: int,
                         output_mask: Any) -> Any:
    bias_sizes = [weight.size(1) * groups if transposed else weight.size(0)]
    return fallback.run_op_on_cpu(torch.ops.aten.convolution_backward.default,
                                  (grad, tensor, weight, bias_sizes, stride, padding, dilation, transposed,
                                   output_padding, groups, output_mask), {})


def has_compatible_shallow_copy_type(tensor: torch.Tensor, source: torch.Tensor) -> bool:
    """torch_npu's rule (Ascend/pytorch torch_npu/csrc/aten/ops/HasCompatibleShallowCopyType.cpp):
    dense CPU and npu tensors are interchangeable, so `cpu_parameter.data = npu_tensor` works, as
    FSDP2 moves parameters. Registered for AutogradPrivateUse1, which the dispatcher chooses whenever
    an npu tensor is one of the two; CPU pairs keep torch's kernel."""
    keys = torch._C._dispatch_keys

    def dense(t: torch.Tensor) -> bool:
        return bool(keys(t).has(torch._C.DispatchKey.CPU) or keys(t).has(torch._C.DispatchKey.PrivateUse1))

    return bool(keys(tensor) == keys(source)) or (dense(tensor) and dense(source))


KERNELS: dict[str, Callable[..., Any]] = {
    "empty.memory_format": empty_memory_format,
    "empty_strided": empty_strided,
    "_copy_from": copy_from,
    "_copy_from_and_resize": copy_from_and_resize,
    "_to_copy": to_copy,
    "resize_": resize,
    "set_.source_Storage_storage_offset": set_storage_offset,
    "set_.source_Storage": set_storage,
    "set_.source_Tensor": set_tensor,
    "set_": set_empty,
    "record_stream": record_stream,
    "convolution_overrideable": convolution,
    "convolution_backward_overrideable": convolution_backward,
}


def _counted(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        stats.COUNTS.npu_ops += 1
        return kernel(*args, **kwargs)
    return counted


class _Hooks(torch._C._acc.PrivateUse1Hooks):
    def is_available(self) -> bool:
        return True

    def has_primary_context(self, dev_id: int) -> bool:
        return True

    def is_built(self) -> bool:
        return True


def _pin_memory(self: torch.Tensor, device: Any = None) -> torch.Tensor:
    # The Python PrivateUse1 hooks cannot provide a pinned-memory allocator; a pinned tensor is a
    # host copy marked as pinned, which is what the program can observe.
    if device is not None and cuda_guard.is_cuda_value(device):
        cuda_guard.record_use(f"Tensor.pin_memory({str(device)!r})")
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    copy = self.clone()
    setattr(copy, _PINNED, True)
    return copy


def _is_pinned(self: torch.Tensor, device: Any = None) -> bool:
    return bool(getattr(self, _PINNED, False))


def _untyped_storage_new(original: Any) -> Any:
    # torch.UntypedStorage(n, device="npu") would allocate through a C++ allocator for PrivateUse1,
    # which a Python backend cannot register (torch dereferences the missing allocator).
    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device")
        if device is not None and torch.device(device).type == "npu":
            host = original(cls, *args, **{k: v for k, v in kwargs.items() if k != "device"})
            return memory.copy_storage_to_npu(host, devices.index(device))
        return original(cls, *args, **kwargs)
    return staticmethod(new)


def _storage_resize(original: Any) -> Any:
    def resize_(self: torch.UntypedStorage, size: int) -> torch.UntypedStorage:
        if self.device.type != "npu":
            result: torch.UntypedStorage = original(self, size)
            return result
        memory.resize_storage(self, int(size))
        return self
    return resize_


def install() -> None:
    """Registers the npu device once: the rename, torch.npu, the kernels, autocast, hccl."""
    if _libraries:
        return
    devices.count()  # fixed for the process from here on (torch.multiprocessing.spawn changes the environment)
    _setup_privateuseone_for_python_backend("npu", backend_module=npu_module, hook=_Hooks())
    sys.modules["torch.npu.amp"] = npu_amp
    memory.setup()
    make_library: Any = torch.library.Library
    generic = make_library("_", "IMPL")
    generic.fallback(fallback.run_on_cpu, "PrivateUse1")
    kernels = make_library("aten", "IMPL")
    for name, kernel in KERNELS.items():
        kernels.impl(name, _counted(kernel), "PrivateUse1")
    autograd_kernels = make_library("aten", "IMPL")
    autograd_kernels.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type,
                          "AutogradPrivateUse1")
    _libraries.extend([generic, kernels, autograd_kernels])
    autocast.install()
    rnn_cells.install()
    hccl.install()
    compile.install()
    device_arguments.install()
    accelerator.install()
    setattr(torch.Tensor, "pin_memory", _pin_memory)
    setattr(torch.Tensor, "is_pinned", _is_pinned)
    setattr(torch.UntypedStorage, "__new__", _untyped_storage_new(torch.UntypedStorage.__new__))
    setattr(torch.UntypedStorage, "resize_", _storage_resize(torch.UntypedStorage.resize_))
