"""A tiny trace per advisor rule of data/trace/advisors.toml, built so that the rule fires on it.

Each builder returns the trace (a Kineto JSON object, or torch_npu's bare array) and what the test
expects independently of the snapshot: the step the finding names (None: a rule over the whole
trace) and a text the finding's message or evidence must hold. Times are microseconds, as Kineto
writes them.
"""

STEP = "ProfilerStep#1"
HOST, DEVICE, STREAM = 1, 0, 7


def x(cat, name, ts, dur, pid=HOST, tid=HOST, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def kineto(*events, step_us=10_000):
    """A Kineto trace of one profiler step around `events`."""
    return {"traceEvents": [x("user_annotation", STEP, 0, step_us), *events]}


def small_gemm_batching():
    dims = [[8, 8], [8, 8]]
    events = []
    for k in range(20):  # min_repeats = 16 launches of one op and shape, each a 5 us GEMM
        events.append(x("cpu_op", "aten::mm", 100 + 20 * k, 10, **{"External id": k + 1, "Input Dims": dims}))
        events.append(x("kernel", "ampere_sgemm_32x32_nn", 105 + 20 * k, 5, DEVICE, STREAM, **{"External id": k + 1}))
    return kineto(*events), STEP, "repeated aten::mm"


def conv_in_loop():
    dims = [[1, 3, 32, 32], [16, 3, 3, 3]]
    events = [x("cpu_op", "aten::convolution", 100 + 50 * k, 40, **{"Input Dims": dims}) for k in range(10)]
    return kineto(*events), STEP, "batch-1 convolutions on"


def host_device_sync():
    events = []
    for k in range(10):  # min_transfers = 8 small copies and min_syncs = 8 syncs in the step
        events.append(x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 100 + 100 * k, 2, DEVICE, STREAM, bytes=4))
        events.append(x("cuda_runtime", "cudaStreamSynchronize", 150 + 100 * k, 20))
    return kineto(*events), STEP, "10 small (<= 1048576 B) H2D/D2H copies, 10 sync points"


def host_bound():
    # 60 kernels of 5 us in a 10 ms step: the device is busy 3% of it.
    events = [x("kernel", "vectorized_elementwise_kernel", 100 + 150 * k, 5, DEVICE, STREAM) for k in range(60)]
    return kineto(*events), STEP, "60 kernels"


def excessive_sync():
    events = [x("kernel", "vectorized_elementwise_kernel", 50, 5, DEVICE, STREAM)]
    events += [x("cuda_runtime", "cudaStreamSynchronize", 100 + 100 * k, 20) for k in range(40)]
    return kineto(*events), STEP, "40 sync points"


def comm_not_overlapped():
    # Half of a 1 ms step is an all-reduce that no computation overlaps.
    events = [x("kernel", "vectorized_elementwise_kernel", 0, 100, DEVICE, STREAM),
              x("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 200, 500, DEVICE, STREAM + 1)]
    return kineto(*events, step_us=1000), STEP, "communication not overlapped 500.0 us"


NPU_HOST, NPU_CANN, NPU_DEVICE = 10, 20, 800


def torch_npu(*events):
    """torch_npu's trace_view.json: a bare array whose process names say it comes from an NPU."""
    names = {NPU_HOST: "Python", NPU_CANN: "CANN", NPU_DEVICE: "Ascend Hardware"}
    meta = [{"ph": "M", "name": "process_name", "pid": p, "tid": 0, "args": {"name": n}} for p, n in names.items()]
    return [*meta, *events]


def recompilation():
    events = [x("cpu_op", "aten::add", 0, 10000, NPU_HOST, NPU_HOST)]
    events += [{"ph": "X", "name": "AscendCL@aclopCompileAndExecute", "pid": NPU_CANN, "tid": NPU_HOST,
                "ts": 100 + 100 * k, "dur": 50, "args": {}} for k in range(25)]  # min_compiles = 20
    return torch_npu(*events), None, "25 aclopCompileAndExecute events"


def aicpu_fallback():
    events = [x("cpu_op", "aten::nonzero", 0, 1000, NPU_HOST, NPU_HOST)]
    events += [{"ph": "X", "name": "NonZero_AiCpu", "pid": NPU_DEVICE, "tid": 3, "ts": 100 + 100 * k, "dur": dur,
                "args": {"Task Type": "AI_CPU"}} for k, dur in enumerate([30, 40, 5])]  # min_task_us = 20
    return torch_npu(*events), None, "3 AI_CPU tasks (2 of them >= 20 us), 75.0 us in total"


BUILDERS = {
    "small-gemm-batching": small_gemm_batching,
    "conv-in-loop": conv_in_loop,
    "host-device-sync": host_device_sync,
    "host-bound": host_bound,
    "excessive-sync": excessive_sync,
    "comm-not-overlapped": comm_not_overlapped,
    "recompilation": recompilation,
    "aicpu-fallback": aicpu_fallback,
}
