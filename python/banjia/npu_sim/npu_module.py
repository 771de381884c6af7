"""`torch.npu` (= `torch_npu.npu`) of the simulated devices: host memory, one stream per device.

Names are those of torch_npu's own module (Ascend/pytorch : torch_npu/npu/__init__.py, `__all__`);
only a subset is simulated. Random numbers on npu come from the CPU generator (the kernels are
CPU kernels), so the seed and RNG-state functions act on torch's CPU default generator.
"""
from __future__ import annotations

from typing import Any

import torch

from banjia.npu_sim import npu_amp as amp
from banjia.npu_sim import devices
from banjia.npu_sim.npu_memory import (
    empty_cache, max_memory_allocated, max_memory_reserved, mem_get_info, memory_allocated,
    memory_reserved, memory_stats, memory_summary, reset_accumulated_memory_stats, reset_max_memory_allocated,
    reset_peak_memory_stats,
)
from banjia.npu_sim.npu_properties import (
    get_device_capability, get_device_name, get_device_properties,
)
from banjia.npu_sim.npu_streams import (
    Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream,
)

__all__ = [
    "is_initialized", "init", "synchronize", "device_count", "can_device_access_peer", "set_device",
    "current_device", "get_device_name", "get_device_properties", "get_device_capability",
    "mem_get_info", "is_available", "device", "device_of", "StreamContext", "stream", "set_stream",
    "current_stream", "default_stream", "utilization", "manual_seed", "manual_seed_all", "seed",
    "seed_all", "initial_seed", "get_rng_state", "set_rng_state", "get_rng_state_all",
    "set_rng_state_all", "empty_cache", "memory_stats", "reset_peak_memory_stats",
    "reset_max_memory_allocated", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_summary", "reset_accumulated_memory_stats", "Stream", "Event",
    "get_amp_supported_dtype",
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_bf16_supported", "FloatTensor", "HalfTensor", "BFloat16Tensor", "DoubleTensor", "LongTensor",
    "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "matmul", "conv", "amp",
]

default_generators: tuple[torch.Generator, ...] = (torch.default_generator,)


def _index(dev: Any = None) -> int:
    return devices.index(dev)


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def _is_in_bad_fork() -> bool:
    return False


def init() -> None:
    return None


def device_count() -> int:
    return devices._count[0] if devices._count else devices.count()  # see current_device


def current_device() -> int:
    # Reads the state instead of calling devices.current(): Dynamo skips the devices module (the
    # dispatcher calls it) and would break a compiled graph at that call.
    return devices._current[0]


def set_device(dev: Any) -> None:
    devices.set_current(dev)


def synchronize(dev: Any = None) -> None:
    _index(dev)  # every simulated op has finished when it returns


def can_device_access_peer(dev: Any, peer: Any) -> bool:
    _index(dev)
    _index(peer)
    return False


def utilization(dev: Any = None) -> int:
    _index(dev)
    return 0


class device:
    """Context manager that makes a device the current one."""

    def __init__(self, dev: Any) -> None:
        self.idx = -1 if dev is None else _index(dev)
        self.prev_idx = -1

    def __enter__(self) -> None:
        self.prev_idx = devices.current()
        if self.idx != -1:
            devices.set_current(self.idx)

    def __exit__(self, *exc: object) -> None:
        if self.idx != -1:
            devices.set_current(self.prev_idx)


class device_of(device):
    def __init__(self, obj: torch.Tensor) -> None:
        super().__init__(obj.device if obj.device.type == "npu" else None)


def manual_seed(seed: int) -> None:
    torch.default_generator.manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    torch.default_generator.manual_seed(int(seed))


def seed() -> None:
    torch.default_generator.seed()


def seed_all() -> None:
    torch.default_generator.seed()


def initial_seed() -> int:
    return torch.default_generator.initial_seed()


def get_rng_state(dev: Any = "npu") -> torch.Tensor:
    _index(dev)
    return torch.default_generator.get_state()


def set_rng_state(new_state: torch.Tensor, dev: Any = "npu") -> None:
    _index(dev)
    torch.default_generator.set_state(new_state)


def get_rng_state_all() -> list[torch.Tensor]:
    return [get_rng_state()]


def set_rng_state_all(new_states: list[torch.Tensor]) -> None:
    for state in new_states:
        set_rng_state(state)


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.float16, torch.bfloat16]


def is_autocast_enabled() -> bool:
    return torch.is_autocast_enabled("npu")


def set_autocast_enabled(enabled: bool) -> None:
    torch.set_autocast_enabled("npu", enabled)


def get_autocast_dtype() -> torch.dtype:
    return torch.get_autocast_dtype("npu")


def set_autocast_dtype(dtype: torch.dtype) -> None:
    torch.set_autocast_dtype("npu", dtype)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return True


class _AllowHF32:
    """torch.npu.matmul / torch.npu.conv: HF32 switches; CPU kernels compute in full float32."""

    def __init__(self, default: bool) -> None:
        self.allow_hf32 = default


matmul = _AllowHF32(False)
conv = _AllowHF32(True)


def _tensor_type(dtype: torch.dtype) -> type:
    class _Meta(type):
        def __instancecheck__(cls, obj: object) -> bool:
            return isinstance(obj, torch.Tensor) and obj.device.type == "npu" and obj.dtype == dtype

    def new(cls: type, *args: Any) -> torch.Tensor:
        if len(args) == 1 and not isinstance(args[0], int):
            return torch.tensor(args[0], dtype=dtype, device="npu")
        return torch.empty(*args, dtype=dtype, device="npu")

    return _Meta(f"{dtype}Tensor", (), {"__new__": new, "dtype": dtype})


FloatTensor = _tensor_type(torch.float32)
HalfTensor = _tensor_type(torch.float16)
BFloat16Tensor = _tensor_type(torch.bfloat16)
DoubleTensor = _tensor_type(torch.float64)
LongTensor = _tensor_type(torch.int64)
IntTensor = _tensor_type(torch.int32)
ShortTensor = _tensor_type(torch.int16)
CharTensor = _tensor_type(torch.int8)
ByteTensor = _tensor_type(torch.uint8)
BoolTensor = _tensor_type(torch.bool)
