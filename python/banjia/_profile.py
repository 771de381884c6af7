"""banjia.profile: record a profiler trace of a training/inference step that `banjia trace summary` reads.

    import banjia
    trace = banjia.profile(lambda: train_step(batch), steps=5, out="prof")
    # then: banjia trace summary prof/

On cpu and cuda it uses torch.profiler and writes one Kineto Chrome trace (`*.pt.trace.json`) into
`out`; on npu it uses torch_npu.profiler with `tensorboard_trace_handler(out)`, which writes a
`*_ascend_pt` directory (torch_npu.profiler mirrors torch.profiler: profile, schedule,
tensorboard_trace_handler; ProfilerActivity.CUDA becomes ProfilerActivity.NPU). The schedule skips
`wait` steps, warms up for `warmup` steps, then records `steps` steps, each marked ProfilerStep#N,
with input shapes recorded (the advisors group kernels by op and shape; on cpu too, where the
shape-based advisors such as conv-in-loop run on the host ops).
"""
from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, Callable

from banjia import device as _device

if TYPE_CHECKING:
    from banjia.device import DeviceLike


def profile(step_fn: Callable[[], object], steps: int = 5, out: str | os.PathLike[str] = "banjia_profile",
            device: DeviceLike | None = None, wait: int = 1, warmup: int = 1, record_shapes: bool = True,
            profile_memory: bool = False, with_stack: bool = False) -> str:
    """Runs `step_fn()` wait + warmup + steps times under the profiler and returns the trace path.

    `device` (default: the available accelerator, else cpu) chooses the profiler and its activities;
    after each step the device is synchronised so a step's device work stays in its step. Returns the
    written `*.pt.trace.json` file (cpu/cuda) or the `out` directory (npu, where torch_npu writes
    `<host>_<pid>_<ts>_ascend_pt/` inside it).
    """
    if steps < 1:
        raise ValueError("steps must be >= 1")
    if wait < 0 or warmup < 0:
        raise ValueError("wait and warmup must be >= 0")
    target = _device.resolve(device)
    out = os.fspath(out)
    os.makedirs(out, exist_ok=True)
    total = wait + warmup + steps
    prof_mod: Any
    if target.type == "npu":
        torch_npu = _device.torch_npu_module()
        if torch_npu is None:
            raise ValueError("banjia.profile: device 'npu' needs torch_npu, which is not installed or failed to import")
        prof_mod = torch_npu.profiler
        activities = [prof_mod.ProfilerActivity.CPU, prof_mod.ProfilerActivity.NPU]
        handler = prof_mod.tensorboard_trace_handler(out)
        result = out
    else:
        import torch.profiler

        prof_mod = torch.profiler
        activities = [prof_mod.ProfilerActivity.CPU]
        if target.type == "cuda":
            activities.append(prof_mod.ProfilerActivity.CUDA)
        result = os.path.join(out, "trace_%d_%d.pt.trace.json" % (os.getpid(), int(time.time() * 1000)))

        def handler(p: Any) -> None:
            p.export_chrome_trace(result)

    schedule = prof_mod.schedule(wait=wait, warmup=warmup, active=steps, repeat=1)
    with prof_mod.profile(activities=activities, schedule=schedule, on_trace_ready=handler,
                          record_shapes=record_shapes, profile_memory=profile_memory,
                          with_stack=with_stack) as p:
        for _ in range(total):
            step_fn()
            _device.synchronize(target)
            p.step()
    return result
