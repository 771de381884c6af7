"""Device name, properties and capability of the simulated npu, as torch_npu answers them.

torch_npu (Ascend/pytorch, master and v2.9.0 to v2.12.0) defines, in torch_npu/csrc/npu/Module.cpp,
`_NPUDeviceProperties` with the read-only fields name, total_memory, cube_core_num,
vector_core_num, L2_cache_size, and the CUDA names major, minor, is_multi_gpu_board,
is_integrated, multi_processor_count, max_threads_per_multi_processor, warp_size,
regs_per_multiprocessor, gcnArchName (std::optional fields it never sets: they read None) and
uuid (a `_CUuuid` with `bytes` and a string form; zero when the runtime cannot tell). So CUDA code
such as `props.major >= 8` fails with a TypeError on an NPU, as here. Its get_device_capability
(torch_npu/npu/__init__.py) returns None with a warning, unless TORCH_NPU_DEVICE_CAPABILITY holds
"major.minor" (non-negative integers), then (major, minor), also with a warning; any other value
warns that it cannot be parsed and returns None. get_device_name and get_device_properties raise
AssertionError("Invalid device id") for an index outside the devices.

The simulated values: the name says what the device is, total_memory is the host's memory, the
core counts are the host's processors, L2_cache_size is the host's L2 cache (0 when the host does not
say), and uuid's last byte is the device index (distinct devices, as on a real machine).
"""
from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

from banjia.npu_sim import devices
from banjia.npu_sim.npu_memory import host_memory

DEVICE_NAME = "banjia npu_sim (CPU)"
_CAPABILITY_ENV = "TORCH_NPU_DEVICE_CAPABILITY"
_CAPABILITY_NOTE = ("The return value of get_device_capability is only for compatibility with PyTorch "
                    "and does not represent the actual capability of the NPU device.")
_MEGABYTE = 1024.0 * 1024.0


@dataclass(frozen=True)
class _CUuuid:
    bytes: list[int]

    def __str__(self) -> str:
        hexes = "".join(f"{b:02x}" for b in self.bytes)
        return f"{hexes[:8]}-{hexes[8:12]}-{hexes[12:16]}-{hexes[16:20]}-{hexes[20:]}"


@dataclass(frozen=True)
class _NPUDeviceProperties:
    name: str
    total_memory: int
    cube_core_num: int
    vector_core_num: int
    L2_cache_size: int
    uuid: _CUuuid
    major: int | None = None
    minor: int | None = None
    is_multi_gpu_board: int | None = None
    is_integrated: int | None = None
    multi_processor_count: int | None = None
    max_threads_per_multi_processor: int | None = None
    warp_size: int | None = None
    regs_per_multiprocessor: int | None = None
    gcnArchName: str | None = None

    def __repr__(self) -> str:
        return (f"_NPUDeviceProperties(name='{self.name}', total_memory={self.total_memory / _MEGABYTE:g}MB, "
                f"cube_core_num={self.cube_core_num}, vector_core_num={self.vector_core_num}, "
                f"uuid={self.uuid}, L2_cache_size={self.L2_cache_size / _MEGABYTE:g}MB)")


def _valid_index(dev: Any) -> int:
    try:
        return devices.index(dev)
    except RuntimeError:
        raise AssertionError("Invalid device id") from None


def get_device_name(dev: Any = None) -> str:
    _valid_index(dev)
    return DEVICE_NAME


def get_device_properties(dev: Any = None) -> _NPUDeviceProperties:
    index = _valid_index(dev)
    processors = os.cpu_count() or 1
    l2_cache = max(int(os.sysconf("SC_LEVEL2_CACHE_SIZE")), 0) if "SC_LEVEL2_CACHE_SIZE" in os.sysconf_names else 0
    return _NPUDeviceProperties(DEVICE_NAME, host_memory()[1], processors, processors, l2_cache,
                                _CUuuid([0] * 15 + [index % 256]))


def get_device_capability(dev: Any = None) -> tuple[int, int] | None:
    """The device parameter has no meaning, as in torch_npu."""
    configured = os.getenv(_CAPABILITY_ENV)
    if not configured:
        warnings.warn(f"You can set the device capability via the environment variable {_CAPABILITY_ENV}. "
                      f"{_CAPABILITY_NOTE}", stacklevel=2)
        return None
    match = re.match(r"^(\d+)\.(\d+)$", configured)
    if not match:
        warnings.warn(f"torch.npu.get_device_capability can't parse {_CAPABILITY_ENV} environment variable: "
                      f"{configured}. Expected format is 'major.minor' where major and minor are non-negative "
                      "integers (e.g., '8.0').", stacklevel=2)
        return None
    warnings.warn(_CAPABILITY_NOTE, stacklevel=2)
    return int(match.group(1)), int(match.group(2))
