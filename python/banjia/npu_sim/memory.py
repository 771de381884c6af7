"""npu tensors over host memory, and CPU aliases of them.

An npu storage is a PrivateUse1 storage whose data pointer is the memory of a CPU storage (its
owner, kept alive as an attribute of the npu storage; torch keeps a storage's Python object, and so
the attribute, for as long as the storage lives). A CPU alias of an npu tensor is a CPU tensor over
the same bytes with the same sizes, strides and offset, made on a non-owning, non-resizable CPU
storage: a CPU kernel that tries to grow it fails instead of moving the bytes under the npu storage.
"""
from __future__ import annotations

import weakref
from typing import Any

import torch

from banjia.npu_sim import devices, stats

_OWNER = "_banjia_owner"  # attribute of an npu or alias storage: the CPU storage that owns the bytes
_ALIAS = "_banjia_alias"  # attribute of an npu storage: its CPU alias storage
_RELEASE = "_banjia_release"  # attribute of an npu storage: the finalizer that counts its bytes as freed

_state: dict[str, Any] = {}


def setup() -> None:
    """Binds what only exists once the device is named "npu"."""
    _state["cpu_keys"] = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
    _state["set_storage"] = torch.ops.aten.set_.source_Storage_storage_offset


def _data_pointer_storage(owner: torch.UntypedStorage, device: torch.device) -> torch.UntypedStorage:
    made: Any = torch._C._construct_storage_from_data_pointer(owner.data_ptr(), device, owner.nbytes())
    setattr(made, _OWNER, owner)
    storage: torch.UntypedStorage = made
    return storage


def npu_storage_owned_by(owner: torch.UntypedStorage, device_index: int) -> torch.UntypedStorage:
    storage = _data_pointer_storage(owner, torch.device("npu", device_index))
    _count_bytes(storage, device_index, owner.nbytes())
    return storage


def _count_bytes(storage: torch.UntypedStorage, device_index: int, nbytes: int) -> None:
    stats.COUNTS.storage_allocated(device_index, nbytes)
    setattr(storage, _RELEASE, weakref.finalize(storage, stats.COUNTS.storage_released, device_index, nbytes))


def resize_storage(storage: torch.UntypedStorage, nbytes: int) -> None:
    """UntypedStorage.resize_ on npu, which torch leaves to C++ hooks a Python backend cannot
    register: the storage object keeps its identity (tensors over it see the new bytes) and gets new
    host memory holding the old bytes that fit (FSDP2 frees and re-allocates parameters this way)."""
    old = storage.nbytes()
    if nbytes == old:
        return
    device_index = storage.device.index or 0
    owner = torch.empty(nbytes, dtype=torch.uint8).untyped_storage()
    kept = min(old, nbytes)
    if kept:
        torch.empty(0, dtype=torch.uint8).set_(owner, 0, [kept], [1]).copy_(
            torch.empty(0, dtype=torch.uint8).set_(cpu_alias_storage(storage), 0, [kept], [1]))
    replacement = _data_pointer_storage(owner, storage.device)
    storage._swap_data_ptr_(replacement)  # type: ignore[attr-defined]  # data pointers and sizes trade places
    setattr(replacement, _OWNER, getattr(storage, _OWNER))  # the old bytes live until replacement dies
    setattr(storage, _OWNER, owner)
    if hasattr(storage, _ALIAS):
        delattr(storage, _ALIAS)
    release = getattr(storage, _RELEASE, None)
    if release is not None:
        release()
    _count_bytes(storage, device_index, nbytes)


def cpu_alias_storage(storage: torch.UntypedStorage) -> torch.UntypedStorage:
    alias: torch.UntypedStorage | None = getattr(storage, _ALIAS, None)
    if alias is None:
        owner = getattr(storage, _OWNER, None)
        if owner is None:
            raise RuntimeError("banjia npu_sim: an npu storage that the simulator did not allocate")
        alias = _data_pointer_storage(owner, torch.device("cpu"))
        setattr(storage, _ALIAS, alias)
    return alias


def set_geometry(tensor: torch.Tensor, storage: torch.UntypedStorage, offset: Any, size: Any,
                 stride: Any) -> None:
    """Points an npu tensor at a storage: the CPU kernel of set_ only rewrites TensorImpl fields
    (and checks that the tensor and the storage are on the same device)."""
    _state["set_storage"].redispatch(_state["cpu_keys"], tensor, storage, offset, size, stride)


def make_npu_tensor(storage: torch.UntypedStorage, dtype: torch.dtype, size: Any, stride: Any,
                    offset: Any, view_of: torch.Tensor | None = None) -> torch.Tensor:
    """A new npu tensor over storage; for a view, one that is an inference tensor exactly when its
    base is (what TensorImpl's view constructor does on the CPU, where a view takes the base's dispatch
    keys): a tensor made inside torch.inference_mode is otherwise an inference tensor, and autograd's
    ADInplaceOrView kernel then fails to share the base's version counter with it."""
    device_index = storage.device.index or 0
    if view_of is not None and view_of.is_inference() != torch.is_inference_mode_enabled():
        with torch._C._InferenceMode(view_of.is_inference()):
            tensor = devices.empty_tensor(device_index, dtype)
    else:
        tensor = devices.empty_tensor(device_index, dtype)
    set_geometry(tensor, storage, offset, size, stride)
    stats.COUNTS.npu_tensors += 1
    return tensor


def cpu_alias(tensor: torch.Tensor) -> torch.Tensor:
    """A CPU tensor over the same bytes, sizes, strides and offset as the npu tensor."""
    storage = cpu_alias_storage(tensor.untyped_storage())
    return torch.empty(0, dtype=tensor.dtype).set_(storage, tensor.storage_offset(), tensor.size(),
                                                   tensor.stride())


def npu_from_cpu(result: torch.Tensor, aliases: list[tuple[torch.Tensor, torch.Tensor]],
                 device_index: int) -> torch.Tensor:
    """The npu tensor for a CPU tensor: the npu tensor it aliases, a view of an aliased npu storage,
    or (for new memory) a tensor on a new storage on npu:device_index that takes ownership of the
    CPU storage."""
    for cpu, npu in aliases:
        if result is cpu:
            return npu
    data = result.untyped_storage().data_ptr()
    if data != 0:
        for cpu, npu in aliases:
            if cpu.untyped_storage().data_ptr() == data:
                return make_npu_tensor(npu.untyped_storage(), result.dtype, result.size(),
                                       result.stride(), result.storage_offset(), view_of=npu)
    storage = npu_storage_owned_by(result.untyped_storage(), device_index)
    return make_npu_tensor(storage, result.dtype, result.size(), result.stride(), result.storage_offset())


def empty_npu(size: Any, dtype: torch.dtype | None, device_index: int, stride: Any = None,
              memory_format: torch.memory_format | None = None) -> torch.Tensor:
    if stride is not None:
        cpu = torch.empty_strided(size, stride, dtype=dtype)
    else:
        cpu = torch.empty(size, dtype=dtype, memory_format=memory_format or torch.contiguous_format)
    return npu_from_cpu(cpu, [], device_index)


def copy_storage_to_npu(storage: torch.UntypedStorage, device_index: int) -> torch.UntypedStorage:
    """A new storage on npu:device_index holding a copy of a (CPU) storage's bytes."""
    target = torch.empty(storage.nbytes(), dtype=torch.uint8).untyped_storage()
    target.copy_(storage)
    return npu_storage_owned_by(target, device_index)


def resize_npu(tensor: torch.Tensor, size: Any) -> torch.Tensor:
    """resize_ for npu tensors: moves to a new storage (keeping the old bytes) when it must grow."""
    size = list(size)
    if size == list(tensor.size()):
        return tensor
    stride = list(torch.empty(size, device="meta").stride())
    numel = 1
    for dim in size:
        numel *= dim
    needed = (tensor.storage_offset() + numel) * tensor.element_size()
    storage = tensor.untyped_storage()
    if needed > storage.nbytes():
        owner = torch.empty(needed, dtype=torch.uint8).untyped_storage()
        old = storage.nbytes()
        if old:
            grown = torch.empty(0, dtype=torch.uint8).set_(owner, 0, [old], [1])
            grown.copy_(torch.empty(0, dtype=torch.uint8).set_(cpu_alias_storage(storage), 0, [old], [1]))
        storage = npu_storage_owned_by(owner, tensor.device.index or 0)
    set_geometry(tensor, storage, tensor.storage_offset(), size, stride)
    return tensor
