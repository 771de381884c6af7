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
    live_bytes: dict[int, int] = field(default_factory=dict)  # per device index
    peak_bytes: dict[int, int] = field(default_factory=dict)  # per device index, since the last reset
    run_peak_bytes: int = 0  # all devices together, over the whole run
    cuda_queries: int = 0
    cuda_uses: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def storage_allocated(self, device: int, nbytes: int) -> None:
        with self.lock:
            live = self.live_bytes[device] = self.live_bytes.get(device, 0) + nbytes
            self.peak_bytes[device] = max(self.peak_bytes.get(device, 0), live)
            self.run_peak_bytes = max(self.run_peak_bytes, sum(self.live_bytes.values()))

    def storage_released(self, device: int, nbytes: int) -> None:
        with self.lock:
            self.live_bytes[device] = self.live_bytes.get(device, 0) - nbytes

    def start_child(self) -> None:
        """In a new process: forget what the parent counted before it forked this one. A new lock:
        another thread of the parent may have held the old one when it forked."""
        self.lock = threading.Lock()
        self.npu_ops = self.npu_graphs = self.npu_tensors = self.cuda_queries = 0
        self.cuda_uses = []
        self.run_peak_bytes = sum(self.live_bytes.values())

    def reset_peak(self, device: int) -> None:
        with self.lock:
            self.peak_bytes[device] = self.live_bytes.get(device, 0)


COUNTS = Counts()
