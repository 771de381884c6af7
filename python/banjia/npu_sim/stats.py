"""What a simulated run did: aten ops per device, npu tensors and memory, CUDA uses."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode


@dataclass
class Counts:
    npu_ops: int = 0
    cpu_ops: int = 0
    npu_tensors: int = 0
    live_bytes: int = 0
    peak_bytes: int = 0
    run_peak_bytes: int = 0
    cuda_queries: int = 0
    cuda_uses: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def storage_allocated(self, nbytes: int) -> None:
        with self.lock:
            self.live_bytes += nbytes
            self.peak_bytes = max(self.peak_bytes, self.live_bytes)
            self.run_peak_bytes = max(self.run_peak_bytes, self.live_bytes)

    def storage_released(self, nbytes: int) -> None:
        with self.lock:
            self.live_bytes -= nbytes

    def reset_peak(self) -> None:
        with self.lock:
            self.peak_bytes = self.live_bytes


COUNTS = Counts()


def _on_npu(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.device.type == "npu"
    if isinstance(value, torch.device):
        return value.type == "npu"
    if isinstance(value, (list, tuple)):
        return any(_on_npu(item) for item in value)
    return False


class OpCounter(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's __init_subclass__
    """Counts every aten op that reaches a backend, as npu (any npu tensor or device argument) or cpu.

    Ops that the npu kernels run on CPU aliases are not counted again: a mode is switched off
    while its own handler runs.
    """

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if _on_npu(args) or _on_npu(tuple(kwargs.values())):
            COUNTS.npu_ops += 1
        else:
            COUNTS.cpu_ops += 1
        return func(*args, **kwargs)


def summary_lines() -> list[str]:
    c = COUNTS
    lines = [
        f"banjia npu_sim: aten ops on npu {c.npu_ops}, on cpu {c.cpu_ops}; "
        f"npu tensors created {c.npu_tensors}; peak npu memory {c.run_peak_bytes} bytes",
        f"banjia npu_sim: CUDA uses {len(c.cuda_uses)}; CUDA availability queries answered False {c.cuda_queries}",
    ]
    return lines
