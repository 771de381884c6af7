"""The runtime's one device layer: which device to use (cpu, cuda or npu), the device of a tensor or
module, synchronisation, peak-memory counters, device names and the framework versions.

Importable without torch and torch_npu; torch is imported when a function is called, torch_npu only
when an npu is asked for or automatic selection looks for one. Works on torch 2.1 and later:
`torch.accelerator` (torch 2.6+) picks the device where it exists; older torch is probed through
`torch.npu` (registered by importing torch_npu) and `torch.cuda`.
"""
from __future__ import annotations

import contextlib
import glob
import importlib
import importlib.metadata
import importlib.util
import os
import resource
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple, Union

if TYPE_CHECKING:
    import torch

# What the functions taking a device accept: "cpu", "cuda:1", "npu", or a torch.device.
DeviceLike = Union[str, "torch.device"]

SUPPORTED = ("cpu", "cuda", "npu")


def torch_npu_module() -> ModuleType | None:
    """torch_npu once imported (importing it registers the npu device and torch.npu), or None when it
    is not installed or fails to import (a broken CANN install must not stop cpu or cuda work)."""
    if "torch_npu" in sys.modules:
        return sys.modules["torch_npu"]
    if importlib.util.find_spec("torch_npu") is None:
        return None
    try:
        return importlib.import_module("torch_npu")
    except Exception:
        return None


def device_module(kind: str) -> Any:
    """torch.cuda or torch.npu (the latter exists once torch_npu is imported)."""
    import torch

    if kind not in ("cuda", "npu"):
        raise ValueError(f"banjia: no device module for {kind!r} (cuda or npu)")
    if kind == "npu":
        torch_npu_module()
    module = getattr(torch, kind, None)
    if module is None:
        raise ValueError("banjia: device 'npu' needs torch_npu, which is not installed or failed to import")
    return module


def _available(kind: str) -> bool:
    try:
        return bool(device_module(kind).is_available())
    except ValueError:
        return False


def default_device_type() -> str:
    """'npu', 'cuda' or 'cpu': the accelerator torch reports as available, else cpu."""
    import torch

    torch_npu_module()  # registers npu as torch's accelerator when torch_npu is installed
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None and hasattr(accelerator, "current_accelerator"):
        # torch >= 2.6. current_accelerator() raised on 2.6 without one; ask is_available() first.
        if not accelerator.is_available():
            return "cpu"
        current = accelerator.current_accelerator()
        kind = current.type if current is not None else "cpu"
        return kind if kind in SUPPORTED else "cpu"
    for kind in ("npu", "cuda"):
        if _available(kind):
            return kind
    return "cpu"


def resolve(device: DeviceLike | None = None) -> torch.device:
    """The torch.device to run on, with its index: `device` checked for support and availability,
    or the automatic choice (default_device_type) at its current index."""
    import torch

    if device is None:
        kind = default_device_type()
        index = None
    else:
        # "npu" is a device name only once torch_npu has registered it
        if isinstance(device, str) and device.partition(":")[0] == "npu" and torch_npu_module() is None:
            raise ValueError(f"banjia: device {device!r} needs torch_npu, which is not installed or failed to import")
        try:
            d = device if isinstance(device, torch.device) else torch.device(device)
        except RuntimeError as e:
            raise ValueError(f"banjia: not a device: {device!r}") from e
        kind, index = d.type, d.index
        if kind not in SUPPORTED:
            raise ValueError(f"banjia: unsupported device type {kind!r} (cpu, cuda or npu)")
        if kind != "cpu" and not _available(kind):
            raise ValueError(f"banjia: device {kind!r} requested but torch.{kind}.is_available() is False")
    if kind == "cpu":
        return torch.device("cpu")
    return torch.device(kind, index if index is not None else int(device_module(kind).current_device()))


def device_type(obj: object) -> str:
    """'cpu', 'cuda', 'npu', ... for a tensor, a module (its first parameter or buffer), a device or a
    device string; 'cpu' for anything else."""
    import torch

    if isinstance(obj, torch.device):
        return obj.type
    if isinstance(obj, str):
        return torch.device(obj).type
    if isinstance(obj, torch.Tensor):
        return obj.device.type
    if isinstance(obj, torch.nn.Module):
        return device_of(obj).type
    return "cpu"


def device_of(module: torch.nn.Module) -> torch.device:
    """The device of a module's first parameter or buffer (cpu for a module without any)."""
    import torch

    for parameter in module.parameters():
        return parameter.device
    for buffer in module.buffers():
        return buffer.device
    return torch.device("cpu")


def synchronize(device: DeviceLike) -> None:
    """Waits for queued work on a cuda or npu device; a no-op on cpu."""
    kind = device_type(device)
    if kind in ("cuda", "npu"):
        device_module(kind).synchronize(device)


def device_name(device: torch.device) -> str | None:
    """The accelerator's name, or the CPU model from /proc/cpuinfo; None when unknown."""
    if device.type != "cpu":
        try:
            return str(device_module(device.type).get_device_name(device))
        except Exception:
            return None
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    import platform

    return platform.processor() or None


class PeakMemory(NamedTuple):
    allocated_bytes: int | None  # device allocator (cuda, npu)
    reserved_bytes: int | None
    rss_bytes: int | None        # process peak resident set (cpu)
    source: str
    since_reset: bool            # False: the peak covers the whole process, not only since the reset


def reset_peak_memory(device: torch.device) -> bool:
    """Starts a new peak: the allocator's peak counters on cuda/npu; VmHWM on Linux cpu (writing 5
    to /proc/self/clear_refs). False when the cpu peak cannot be reset."""
    if device.type != "cpu":
        device_module(device.type).reset_peak_memory_stats(device)
        return True
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _vm_hwm_bytes() -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    return None


def peak_memory(device: torch.device, reset_done: bool) -> PeakMemory:
    """The peak since reset_peak_memory (whose result is `reset_done`)."""
    if device.type != "cpu":
        mod = device_module(device.type)
        return PeakMemory(int(mod.max_memory_allocated(device)), int(mod.max_memory_reserved(device)), None,
                          f"torch.{device.type}.max_memory_allocated", True)
    rss = _vm_hwm_bytes()
    if rss is not None:
        return PeakMemory(None, None, rss, "/proc/self/status VmHWM", reset_done)
    # ru_maxrss is in KiB on Linux and never resets
    return PeakMemory(None, None, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "getrusage ru_maxrss",
                      False)


def _distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        module = sys.modules.get(name)
        version = getattr(module, "__version__", None) if module is not None else None
        return str(version) if version is not None else None


def cann_version() -> str | None:
    """torch.version.cann (set once torch_npu is imported), else the version line of the first
    ascend_*_install.info under realpath($ASCEND_HOME_PATH or $ASCEND_TOOLKIT_HOME), where torch_npu's
    collect_env reads it."""
    import torch

    version = getattr(torch.version, "cann", None)
    if version:
        return str(version)
    home = os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME")
    if not home:
        return None
    for info in sorted(glob.glob(os.path.join(os.path.realpath(home), "ascend_*_install.info"))):
        with contextlib.suppress(OSError):
            with open(info) as f:
                for line in f:
                    if line.startswith("version="):
                        return line.split("=", 1)[1].strip()
    return None


def versions() -> dict[str, str | None]:
    """{'torch', 'torch_npu', 'cuda', 'cann'}: None for what is not installed. Does not import
    torch_npu (its installed version is read from the package metadata)."""
    import torch

    return {"torch": str(torch.__version__), "torch_npu": _distribution_version("torch_npu"),
            "cuda": torch.version.cuda, "cann": cann_version()}
