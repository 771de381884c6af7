"""A test double of torch_npu for the runtime's npu code paths on a machine without an NPU.

Importing it registers the device name "npu" and the torch.npu module the way torch_npu does
(torch.utils.rename_privateuse1_backend, torch._register_device_module). torch.npu answers with a host
clock for events and fixed allocator counters; torch_npu.profiler records how it is driven. No tensor
can live on this device: it exists to test device selection, timing, memory and profiler wiring.
"""
import time
import types

import torch

__version__ = "0.0.0+stand-in"

calls = []  # (function, argument) in call order

torch.utils.rename_privateuse1_backend("npu")


class Event:
    def __init__(self, enable_timing=False):
        self.enable_timing = enable_timing
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


npu = types.ModuleType("torch_npu.npu")
npu.is_available = lambda: True
npu.device_count = lambda: 2
npu.current_device = lambda: 1
npu.Event = Event
npu.synchronize = lambda device=None: calls.append(("synchronize", str(device)))
npu.reset_peak_memory_stats = lambda device=None: calls.append(("reset_peak_memory_stats", str(device)))
npu.max_memory_allocated = lambda device=None: 7 * 2**20
npu.max_memory_reserved = lambda device=None: 9 * 2**20
npu.get_device_name = lambda device=None: "Ascend stand-in"
torch._register_device_module("npu", npu)


class _Profile:
    def __init__(self, **options):
        calls.append(("profile", options))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def step(self):
        calls.append(("step", None))


profiler = types.ModuleType("torch_npu.profiler")
profiler.ProfilerActivity = types.SimpleNamespace(CPU="CPU", NPU="NPU")
profiler.schedule = lambda **kw: ("schedule", kw)
profiler.tensorboard_trace_handler = lambda out: ("tensorboard_trace_handler", out)
profiler.profile = _Profile
