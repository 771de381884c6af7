"""The simulated npu devices: how many a process sees, which one is current, tensors on each.

torch's Python device guard (torch/csrc/acc/Module.cpp) knows one device, index 0, and
`torch._C._acc.create_empty_tensor` makes npu:0 tensors only. A tensor on npu:k is made here from a
CPU tensor's DLPack capsule whose device is rewritten to (kDLExtDev, k): `from_dlpack` maps kDLExtDev
to PrivateUse1. Such a tensor serves as the template (`.data =`, which copies the device, dtype and
dispatch keys without dispatching any op) of every new npu:k tensor, whose storage the simulator
then sets (banjia.npu_sim.memory).

Device count, first match: BANJIA_NPU_SIM_DEVICES; LOCAL_WORLD_SIZE (set by torchrun for each
worker); the nprocs of the torch.multiprocessing.spawn that started the process (the launcher starts
one process per device; banjia.npu_sim.children); 1. The current device is one per process.
"""
from __future__ import annotations

import ctypes
import os
from typing import Any

import torch

DEVICES_ENV = "BANJIA_NPU_SIM_DEVICES"
_KDL_EXT_DEV = 12  # DLPack's DLDeviceType for "extension" devices: PrivateUse1 in torch

_count: list[int] = []
_current = [0]
_templates: dict[tuple[int, torch.dtype, bool], torch.Tensor] = {}


def count_from_environment() -> int:
    for name in (DEVICES_ENV, "LOCAL_WORLD_SIZE"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def count() -> int:
    if not _count:
        _count.append(count_from_environment())
    return _count[0]


def current() -> int:
    return _current[0]


def index(device: Any) -> int:
    """The device index that device (None, an int, "npu:1", a torch.device) names; checked."""
    if device is None:
        return _current[0]
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != "npu":
            raise ValueError(f"Expected an npu device, got {device}")
        device = _current[0] if device.index is None else device.index
    chosen = int(device)
    if chosen == -1:
        return _current[0]
    if not 0 <= chosen < count():
        raise RuntimeError(f"banjia npu_sim: npu:{chosen} was requested, but the simulator has {count()} "
                           f"device(s) (set {DEVICES_ENV} for more; see docs/npu-sim.md)")
    return chosen


def set_current(device: Any) -> None:
    _current[0] = index(device)


def check(device: torch.device | None) -> None:
    if device is not None and device.type == "npu":
        index(device)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice)]


def _capsule_pointer(capsule: object) -> int:
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    pointer: int = get_pointer(capsule, b"dltensor")
    return pointer


def _template(device_index: int, dtype: torch.dtype, inference: bool) -> torch.Tensor:
    key = (device_index, dtype, inference)
    template = _templates.get(key)
    if template is None:
        capsule = torch.empty(0, dtype=dtype).__dlpack__()
        # DLManagedTensor starts with its DLTensor: data pointer, then the device.
        dl_tensor = _DLTensor.from_address(_capsule_pointer(capsule))
        dl_tensor.device.device_type = _KDL_EXT_DEV
        dl_tensor.device.device_id = device_index
        with torch.inference_mode(inference):
            template = torch.utils.dlpack.from_dlpack(capsule)
        _templates[key] = template
    return template


def empty_tensor(device_index: int, dtype: torch.dtype) -> torch.Tensor:
    """A new npu tensor without memory on npu:device_index (an inference tensor inside
    inference_mode, like any tensor made there)."""
    tensor = torch._C._acc.create_empty_tensor((0,), dtype)
    if device_index != 0:
        tensor.data = _template(device_index, dtype, torch.is_inference_mode_enabled())
        # Autograd's engine keeps one worker queue per device that the device guard counts (one):
        # backward through npu:k tensors runs in the calling thread instead, as on the CPU.
        torch._C._set_multithreading_enabled(False)
    return tensor
