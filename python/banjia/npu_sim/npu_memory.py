"""Memory statistics of the simulated npu (part of `torch.npu`), per device.

The bytes of live npu storages are counted as they are made and freed (banjia.npu_sim.memory).
There is no caching allocator: freed memory goes straight back to the host, so the reserved bytes
equal the allocated ones and empty_cache has nothing to do. The statistics keys are those of
torch_npu's caching allocator (the CUDA ones); only the byte counts of "all" pools are kept.
"""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

from banjia.npu_sim import devices, stats


def host_memory() -> tuple[int, int]:
    """(free, total) bytes of the host's memory: the simulated devices' memory."""
    page = os.sysconf("SC_PAGE_SIZE")
    return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page


def mem_get_info(dev: Any = None) -> tuple[int, int]:
    devices.index(dev)
    return host_memory()


def empty_cache() -> None:
    return None  # no caching allocator: freed npu memory goes straight back to the host


def memory_allocated(dev: Any = None) -> int:
    return stats.COUNTS.live_bytes.get(devices.index(dev), 0)


def max_memory_allocated(dev: Any = None) -> int:
    return stats.COUNTS.peak_bytes.get(devices.index(dev), 0)


def memory_reserved(dev: Any = None) -> int:
    return memory_allocated(dev)


def max_memory_reserved(dev: Any = None) -> int:
    return max_memory_allocated(dev)


def reset_peak_memory_stats(dev: Any = None) -> None:
    stats.COUNTS.reset_peak(devices.index(dev))


def reset_max_memory_allocated(dev: Any = None) -> None:
    reset_peak_memory_stats(dev)


def reset_accumulated_memory_stats(dev: Any = None) -> None:
    devices.index(dev)  # only current and peak values are kept: nothing accumulates


def memory_stats_as_nested_dict(dev: Any = None) -> dict[str, Any]:
    """The statistics in the nested form of torch's C++ allocators (torch.cuda.memory_stats_as_nested_dict)."""
    allocated, peak = memory_allocated(dev), max_memory_allocated(dev)
    return {"allocated_bytes": {"all": {"current": allocated, "peak": peak}},
            "reserved_bytes": {"all": {"current": allocated, "peak": peak}}}


def memory_stats(dev: Any = None) -> OrderedDict[str, int]:
    flat: list[tuple[str, int]] = []
    for kind, pools in memory_stats_as_nested_dict(dev).items():
        for pool, values in pools.items():
            flat.extend((f"{kind}.{pool}.{name}", value) for name, value in values.items())
    return OrderedDict(sorted(flat))


def memory_summary(dev: Any = None, abbreviated: bool = False) -> str:
    return "\n".join(f"{key}: {value}" for key, value in memory_stats(dev).items())
