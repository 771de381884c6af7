"""banjia.profile: record a profiler trace of a training/inference step that `banjia trace summary` reads.

    import banjia
    trace = banjia.profile(lambda: train_step(batch), steps=5, out="prof")
    # then: banjia trace summary prof/

On cpu and cuda it uses torch.profiler and writes one Kineto Chrome trace (`*.pt.trace.json`) into
`out`; on npu it uses torch_npu.profiler with `tensorboard_trace_handler(out)`, which writes a
`*_ascend_pt` directory (torch_npu.profiler mirrors torch.profiler: profile, schedule,
tensorboard_trace_handler; ProfilerActivity.CUDA becomes ProfilerActivity.NPU). The schedule skips
`wait` steps, warms up for `warmup` steps, then records `steps` steps, each marked ProfilerStep#N,
with input shapes recorded (the advisors group kernels by op and shape).
"""
import os
import time


def _device_of(device):
    if device is not None:
        return str(device).split(":")[0]
    import torch

    if hasattr(torch, "npu") and getattr(torch.npu, "is_available", lambda: False)():
        return "npu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def _synchronize(device):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()
    elif device == "npu":
        torch.npu.synchronize()


def profile(step_fn, steps=5, out="banjia_profile", device=None, wait=1, warmup=1, record_shapes=True,
            profile_memory=False, with_stack=False):
    """Runs `step_fn()` wait + warmup + steps times under the profiler and returns the trace path.

    Returns the written `*.pt.trace.json` file (cpu/cuda) or the `out` directory (npu, where
    torch_npu writes `<host>_<pid>_<ts>_ascend_pt/` inside it).
    """
    if steps < 1:
        raise ValueError("steps must be >= 1")
    if wait < 0 or warmup < 0:
        raise ValueError("wait and warmup must be >= 0")
    device = _device_of(device)
    os.makedirs(out, exist_ok=True)
    total = wait + warmup + steps
    if device == "npu":
        import torch_npu  # noqa: F401  (registers torch.npu)
        prof_mod = torch_npu.profiler
        activities = [prof_mod.ProfilerActivity.CPU, prof_mod.ProfilerActivity.NPU]
        handler = prof_mod.tensorboard_trace_handler(out)
        result = out
    else:
        import torch.profiler as prof_mod

        activities = [prof_mod.ProfilerActivity.CPU]
        if device == "cuda":
            activities.append(prof_mod.ProfilerActivity.CUDA)
        result = os.path.join(out, "trace_%d_%d.pt.trace.json" % (os.getpid(), int(time.time() * 1000)))

        def handler(p):
            p.export_chrome_trace(result)

    schedule = prof_mod.schedule(wait=wait, warmup=warmup, active=steps, repeat=1)
    with prof_mod.profile(activities=activities, schedule=schedule, on_trace_ready=handler,
                          record_shapes=record_shapes, profile_memory=profile_memory,
                          with_stack=with_stack) as p:
        for _ in range(total):
            step_fn()
            _synchronize(device)
            p.step()
    return result
