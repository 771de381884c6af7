"""`torch.accelerator` on the simulated npu: its C entry points answered from torch.npu.

torch.accelerator's Python functions call C++ entry points, `torch._C._accelerator_*`, which reach
the device through the registered device guard and caching allocator. A real NPU registers C++
ones (torch_npu); a Python-driven PrivateUse1 device cannot: torch's Python device guard
(torch/csrc/acc/Module.cpp) always answers device 0 of 1 and does not synchronize, and there is no
allocator, so `synchronize` and every memory function fail with an internal assert. The simulator
therefore replaces exactly those entry points on `torch._C` with functions that serve the simulated
npu from torch.npu (banjia.npu_sim.npu_module): the public torch.accelerator functions stay torch's
own, with torch's argument handling, and Dynamo, the only other caller, sees the same answers.
Installed with the stand-in, which makes npu the current accelerator (no other accelerator
exists on the host the simulator runs on).
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from banjia.npu_sim import devices, npu_memory, npu_streams


def _exchange_device(device_index: int) -> int:
    previous = devices.current()
    if device_index >= 0:
        devices.set_current(device_index)
    return previous


def _set_device_index(device_index: int) -> None:
    if device_index >= 0:
        devices.set_current(device_index)


def _synchronize(device_index: int) -> None:
    devices.index(device_index)  # every simulated op has finished when it returns


def _get_stream(device_index: int) -> torch.Stream:
    return npu_streams.current_stream(device_index)


def _set_stream(stream: torch.Stream) -> None:
    return None  # one stream per device


def _is_allocator_initialized() -> bool:
    return True


def _empty_cache() -> None:
    npu_memory.empty_cache()


def _device_stats(device_index: int) -> dict[str, Any]:
    return npu_memory.memory_stats_as_nested_dict(device_index)


def _reset_accumulated(device_index: int) -> None:
    npu_memory.reset_accumulated_memory_stats(device_index)


def _reset_peak(device_index: int) -> None:
    npu_memory.reset_peak_memory_stats(device_index)


def _memory_info(device_index: int) -> tuple[int, int]:
    return npu_memory.mem_get_info(device_index)


ENTRY_POINTS: dict[str, Callable[..., Any]] = {
    "_accelerator_getDeviceIndex": devices.current,
    "_accelerator_setDeviceIndex": _set_device_index,
    "_accelerator_exchangeDevice": _exchange_device,
    "_accelerator_maybeExchangeDevice": _exchange_device,
    "_accelerator_synchronizeDevice": _synchronize,
    "_accelerator_getStream": _get_stream,
    "_accelerator_setStream": _set_stream,
    "_accelerator_isAllocatorInitialized": _is_allocator_initialized,
    "_accelerator_emptyCache": _empty_cache,
    "_accelerator_getDeviceStats": _device_stats,
    "_accelerator_resetAccumulatedStats": _reset_accumulated,
    "_accelerator_resetPeakStats": _reset_peak,
    "_accelerator_getMemoryInfo": _memory_info,
}


def install() -> None:
    for name, function in ENTRY_POINTS.items():
        if hasattr(torch._C, name):  # the set grows with torch versions
            setattr(torch._C, name, function)
