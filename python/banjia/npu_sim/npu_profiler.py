"""`torch_npu.profiler` under the simulator: torch's own profiler, recording what the host runs.

torch_npu's profiler (Ascend/pytorch torch_npu/profiler/__init__.py: profile, schedule,
tensorboard_trace_handler, ProfilerAction, ProfilerActivity with CPU and NPU) records CANN's view of
the device and writes the ASCEND_PROFILER_OUTPUT layout. The simulated device has no such layer:
its ops run as CPU kernels on the host, so torch.profiler's CPU activity already records every op of
a simulated run. Here `profile` is torch.profiler.profile with the NPU activity folded into the CPU
one, and `tensorboard_trace_handler` writes torch's Chrome trace (what `banjia trace` reads as a
Kineto trace), not CANN's output. The API is torch_npu's, so a migrated program runs unchanged.
"""
from __future__ import annotations

import enum
from typing import Any, Callable, Iterable

import torch.profiler

schedule = torch.profiler.schedule
ProfilerAction = torch.profiler.ProfilerAction
record_function = torch.profiler.record_function


class ProfilerActivity(enum.Enum):
    """torch_npu's activities (Ascend/pytorch torch_npu/csrc/profiler/init.cpp: CPU, NPU)."""

    CPU = 0
    NPU = 1


def supported_activities() -> set[ProfilerActivity]:
    return {ProfilerActivity.CPU, ProfilerActivity.NPU}


def _torch_activities(activities: Iterable[Any] | None) -> list[torch.profiler.ProfilerActivity]:
    # The simulated NPU's work is host work: whichever activities are asked for, torch's CPU activity
    # records it.
    return [torch.profiler.ProfilerActivity.CPU]


class profile(torch.profiler.profile):  # noqa: N801 - torch_npu's name
    """torch_npu.profiler.profile's parameters; the experimental_config (profiler level, AI Core
    metrics) has nothing to configure on the simulated device and is accepted as given."""

    def __init__(self, activities: Iterable[Any] | None = None, schedule: Callable[[int], Any] | None = None,
                 on_trace_ready: Callable[..., Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None, **_: Any) -> None:
        super().__init__(activities=_torch_activities(activities), schedule=schedule, on_trace_ready=on_trace_ready,
                         record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules)
        self.experimental_config = experimental_config


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, analyse_flag: bool = True,
                              async_mode: bool = False) -> Callable[..., Any]:
    """torch_npu's signature; writes torch's Chrome trace into dir_name (analyse_flag and async_mode
    are about CANN's offline analysis, which the simulator has none of)."""
    handler: Callable[..., Any] = torch.profiler.tensorboard_trace_handler(dir_name, worker_name)
    return handler
