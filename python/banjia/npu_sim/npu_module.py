"""`torch.npu` (= `torch_npu.npu`) of the simulated device: one device, host memory, one stream.

Names are those of torch_npu's own module (Ascend/pytorch : torch_npu/npu/__init__.py, `__all__`);
only a subset is simulated. Random numbers on npu come from the CPU generator (the kernels are
CPU kernels), so the seed and RNG-state functions act on torch's CPU default generator.
"""
from __future__ import annotations

import os
import time
from typing import Any, NamedTuple

import torch

from banjia.npu_sim import npu_amp as amp
from banjia.npu_sim import stats

__all__ = [
    "is_initialized", "init", "synchronize", "device_count", "can_device_access_peer", "set_device",
    "current_device", "get_device_name", "get_device_properties", "get_device_capability",
    "mem_get_info", "is_available", "device", "device_of", "StreamContext", "stream", "set_stream",
    "current_stream", "default_stream", "utilization", "manual_seed", "manual_seed_all", "seed",
    "seed_all", "initial_seed", "get_rng_state", "set_rng_state", "get_rng_state_all",
    "set_rng_state_all", "empty_cache", "memory_stats", "reset_peak_memory_stats",
    "reset_max_memory_allocated", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_summary", "Stream", "Event", "get_amp_supported_dtype",
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_bf16_supported", "FloatTensor", "HalfTensor", "BFloat16Tensor", "DoubleTensor", "LongTensor",
    "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "matmul", "conv", "amp",
]

DEVICE_NAME = "banjia npu_sim (CPU)"
default_generators: tuple[torch.Generator, ...] = (torch.default_generator,)


def _index(dev: Any = None) -> int:
    if dev is None:
        return 0
    if isinstance(dev, str):
        dev = torch.device(dev)
    if isinstance(dev, torch.device):
        if dev.type != "npu":
            raise ValueError(f"Expected an npu device, got {dev}")
        dev = 0 if dev.index is None else dev.index
    index = int(dev)
    if index not in (0, -1):
        raise RuntimeError(f"banjia npu_sim simulates one device (npu:0); npu:{index} was requested")
    return 0


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def _is_in_bad_fork() -> bool:
    return False


def init() -> None:
    return None


def device_count() -> int:
    return 1


def current_device() -> int:
    return 0


def set_device(dev: Any) -> None:
    _index(dev)


def synchronize(dev: Any = None) -> None:
    _index(dev)  # every simulated op has finished when it returns


def can_device_access_peer(dev: Any, peer: Any) -> bool:
    _index(dev)
    _index(peer)
    return False


def get_device_name(dev: Any = None) -> str:
    _index(dev)
    return DEVICE_NAME


class _Properties(NamedTuple):
    name: str
    total_memory: int


def _host_memory() -> tuple[int, int]:
    page = os.sysconf("SC_PAGE_SIZE")
    return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page


def get_device_properties(dev: Any = None) -> _Properties:
    _index(dev)
    return _Properties(DEVICE_NAME, _host_memory()[1])


def get_device_capability(dev: Any = None) -> None:
    _index(dev)
    return None  # torch_npu returns None here too (no CUDA compute capability on NPU)


def mem_get_info(dev: Any = None) -> tuple[int, int]:
    _index(dev)
    return _host_memory()


def utilization(dev: Any = None) -> int:
    _index(dev)
    return 0


class device:
    """Context manager that selects a device; the simulator has only npu:0."""

    def __init__(self, dev: Any) -> None:
        self.idx = -1 if dev is None else _index(dev)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class device_of(device):
    def __init__(self, obj: torch.Tensor) -> None:
        super().__init__(obj.device if obj.device.type == "npu" else None)


class Event:
    """Records host time; every simulated op is finished when it returns, so queries are True."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self._time: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        self._time = time.perf_counter()

    def wait(self, stream: Stream | None = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with enable_timing=True")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calling elapsed_time")
        return (end_event._time - self._time) * 1000.0


class Stream:
    """An in-order queue: the simulated device runs each op to completion when it is issued."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        _index(device)
        self.priority = priority

    @property
    def device(self) -> torch.device:
        return torch.device("npu", 0)

    def wait_event(self, event: Event) -> None:
        return None

    def wait_stream(self, stream: Stream) -> None:
        return None

    def record_event(self, event: Event | None = None) -> Event:
        event = event or Event()
        event.record(self)
        return event

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


_DEFAULT_STREAM = Stream()


def current_stream(dev: Any = None) -> Stream:
    _index(dev)
    return _DEFAULT_STREAM


def default_stream(dev: Any = None) -> Stream:
    _index(dev)
    return _DEFAULT_STREAM


def set_stream(s: Stream) -> None:
    return None


class StreamContext:
    def __init__(self, s: Stream | None) -> None:
        self.stream = s

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def stream(s: Stream | None) -> StreamContext:
    return StreamContext(s)


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


def empty_cache() -> None:
    return None  # no caching allocator: freed npu memory goes straight back to the host


def memory_allocated(dev: Any = None) -> int:
    _index(dev)
    return stats.COUNTS.live_bytes


def max_memory_allocated(dev: Any = None) -> int:
    _index(dev)
    return stats.COUNTS.peak_bytes


def memory_reserved(dev: Any = None) -> int:
    return memory_allocated(dev)


def max_memory_reserved(dev: Any = None) -> int:
    return max_memory_allocated(dev)


def reset_peak_memory_stats(dev: Any = None) -> None:
    _index(dev)
    stats.COUNTS.reset_peak()


def reset_max_memory_allocated(dev: Any = None) -> None:
    reset_peak_memory_stats(dev)


def memory_stats(dev: Any = None) -> dict[str, int]:
    return {
        "allocated_bytes.all.current": memory_allocated(dev),
        "allocated_bytes.all.peak": max_memory_allocated(dev),
        "reserved_bytes.all.current": memory_reserved(dev),
        "reserved_bytes.all.peak": max_memory_reserved(dev),
    }


def memory_summary(dev: Any = None, abbreviated: bool = False) -> str:
    return "\n".join(f"{key}: {value}" for key, value in memory_stats(dev).items())


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
