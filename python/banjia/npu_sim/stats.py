"""What a simulated run did: aten ops on npu, npu tensors and memory, CUDA uses.

Ops are counted by the npu device's own kernels (banjia.npu_sim.fallback and the kernels of
banjia.npu_sim.backend), which see every aten op that reaches the device, whether it comes from
eager code or from a graph that torch.compile's aot_eager backend runs; the graphs Inductor compiles
for npu run as CPU code on the npu memory (banjia.npu_sim.compiled_graphs) and are counted per call
as compiled graph calls. Ops on the CPU are not counted: only a TorchDispatchMode sees them from
Python, and Dynamo refuses to compile while one is active.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class Counts:
    npu_ops: int = 0
    npu_graphs: int = 0
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


def summary_lines() -> list[str]:
    c = COUNTS
    lines = [
        f"banjia npu_sim: aten ops on npu {c.npu_ops}; compiled graph calls on npu {c.npu_graphs}; "
        f"npu tensors created {c.npu_tensors}; peak npu memory {c.run_peak_bytes} bytes",
        f"banjia npu_sim: CUDA uses {len(c.cuda_uses)}; CUDA availability queries answered False {c.cuda_queries}",
    ]
    return lines
