"""banjia.bench: record a training/inference step the same way on cpu, cuda and npu.

    import banjia.bench
    banjia.bench.record(step, batch_size=64, label="gpu", out="bench/gpu.json")

    with banjia.bench.recorder(batch_size=64, label="npu", out="bench/npu.json") as rec:
        for batch in loader:
            with rec.step():
                train_step(batch)

Then `banjia bench compare bench/gpu.json bench/npu.json` prints the table. The JSON schema
("format": "banjia.bench", "version": 1) is documented in README.md (Benchmarks).

Timing: device events (torch.cuda.Event / torch.npu.Event) on cuda and npu, so the time is what the
device spent between the two events; time.perf_counter on cpu. Warm-up steps are never measured.
"""
import contextlib
import datetime
import glob
import importlib.util
import json
import os
import platform
import re
import resource
import statistics
import sys
import time

from banjia._bench_power import PowerSampler, power_tool
from banjia._io import write_atomic

FORMAT = "banjia.bench"
SCHEMA_VERSION = 1

# Environment variables recorded with every run: the allocator, dispatch and launch settings that
# change step time or memory (see docs/sources/env-vars.md: PYTORCH_NPU_ALLOC_CONF,
# TASK_QUEUE_ENABLE, ASCEND_LAUNCH_BLOCKING, ...; PyTorch's CUDA environment-variable page for the
# CUDA side). Captured by prefix so new variables are not missed; names that look like secrets are not.
_ENV_PREFIXES = ("PYTORCH_", "TORCH_", "CUDA_", "CUBLAS_", "CUDNN_", "NCCL_", "ASCEND_", "HCCL_", "ACL_",
                 "NPU_", "OMP_", "MKL_")
_ENV_NAMES = ("TASK_QUEUE_ENABLE", "COMBINED_ENABLE", "CPU_AFFINITY_CONF", "HOST_CACHE_CAPACITY",
              "ACLNN_CACHE_LIMIT", "PER_STREAM_QUEUE")
_SECRET = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|_KEY$|APIKEY", re.I)


def _torch():
    import torch  # imported on use so `import banjia` works without torch
    return torch


# ---------------------------------------------------------------------------------------------- device

def _resolve_device(device):
    """Returns (type, index): "cuda", "npu" or "cpu", from an explicit device or what is available."""
    torch = _torch()
    if device is not None:
        d = torch.device(device) if not isinstance(device, torch.device) else device
        if d.type == "npu":
            _import_torch_npu()
        if d.type not in ("cpu", "cuda", "npu"):
            raise ValueError(f"banjia.bench: unsupported device type {d.type!r} (cpu, cuda or npu)")
        if d.type != "cpu" and not (hasattr(torch, d.type) and _module(d.type).is_available()):
            raise ValueError(f"banjia.bench: device {d.type!r} requested but torch.{d.type}.is_available() is False")
        index = d.index if d.index is not None else (0 if d.type == "cpu" else _module(d.type).current_device())
        return d.type, index
    if importlib.util.find_spec("torch_npu") is not None and _import_torch_npu() and torch.npu.is_available():
        return "npu", torch.npu.current_device()
    if torch.cuda.is_available():
        return "cuda", torch.cuda.current_device()
    return "cpu", 0


def _import_torch_npu():
    try:
        import torch_npu  # noqa: F401  (registers torch.npu)
        return True
    except Exception:  # a broken CANN install must not stop a cpu/cuda measurement
        return False


def _module(device_type):
    return getattr(_torch(), device_type)  # torch.cuda or torch.npu


class _HostTimer:
    """perf_counter around the step; the step has finished when it returns on cpu."""
    method = "perf_counter"

    def __init__(self):
        self._t0, self.times_ms = 0.0, []

    def start(self):
        self._t0 = time.perf_counter()

    def stop(self):
        self.times_ms.append((time.perf_counter() - self._t0) * 1e3)

    def finish(self):
        return self.times_ms


class _EventTimer:
    """Device events recorded on the current stream; read once at the end so timing never syncs."""

    def __init__(self, device_type):
        self.method = f"{device_type}-event"
        self._mod = _module(device_type)
        self._pairs, self._start = [], None

    def start(self):
        self._start = self._mod.Event(enable_timing=True)
        self._start.record()

    def stop(self):
        end = self._mod.Event(enable_timing=True)
        end.record()
        self._pairs.append((self._start, end))

    def finish(self):
        self._mod.synchronize()
        return [float(s.elapsed_time(e)) for s, e in self._pairs]


# ---------------------------------------------------------------------------------------------- memory

def _read_vm_hwm():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_peak_memory(device_type):
    """Resets the peak counters; returns the scope the cpu peak will have ("run" or "process")."""
    if device_type != "cpu":
        _module(device_type).reset_peak_memory_stats()
        return "run"
    try:  # Linux: writing 5 to clear_refs resets VmHWM to the current RSS
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return "run"
    except OSError:
        return "process"


def _peak_memory(device_type, scope):
    if device_type != "cpu":
        mod = _module(device_type)
        return {"peak_allocated_bytes": int(mod.max_memory_allocated()),
                "peak_reserved_bytes": int(mod.max_memory_reserved()), "peak_rss_bytes": None,
                "source": f"torch.{device_type}.max_memory_allocated", "scope": scope}
    rss = _read_vm_hwm()
    source = "/proc/self/status VmHWM"
    if rss is None:  # ru_maxrss is in KiB on Linux
        rss, source, scope = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "getrusage ru_maxrss", "process"
    return {"peak_allocated_bytes": None, "peak_reserved_bytes": None, "peak_rss_bytes": int(rss),
            "source": source, "scope": scope}


# ----------------------------------------------------------------------------------------- environment

def _cann_version():
    torch = _torch()
    version = getattr(torch.version, "cann", None)  # set once torch_npu is imported
    if version:
        return str(version)
    home = os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME")
    if not home:
        return None
    # torch_npu's collect_env reads the first ascend_*_install.info under realpath($ASCEND_HOME_PATH).
    for info in sorted(glob.glob(os.path.join(os.path.realpath(home), "ascend_*_install.info"))):
        try:
            with open(info) as f:
                for line in f:
                    if line.startswith("version="):
                        return line.split("=", 1)[1].strip()
        except OSError:
            continue
    return None


def _package_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        module = sys.modules.get(name)
        return getattr(module, "__version__", None) if module else None


def _device_name(device_type, index):
    if device_type != "cpu":
        try:
            return str(_module(device_type).get_device_name(index))
        except Exception:
            return None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def environment(device_type="cpu"):
    """Versions and the relevant environment variables, as recorded in every run."""
    torch = _torch()
    env = {k: v for k, v in sorted(os.environ.items())
           if (k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES) and not _SECRET.search(k)}
    return {"python": platform.python_version(), "platform": platform.platform(), "torch": torch.__version__,
            "torch_npu": _package_version("torch_npu") if device_type == "npu" or "torch_npu" in sys.modules else None,
            "cuda": torch.version.cuda, "cann": _cann_version(), "cpu_threads": torch.get_num_threads(),
            "env": env}


# ------------------------------------------------------------------------------------------- recording

class Recorder:
    """Times steps one by one; the first `warmup` steps are run but not measured. See `recorder()`."""

    def __init__(self, *, warmup=5, batch_size=None, sample_unit="samples", label=None, out="bench/run.json",
                 device=None, power="auto", power_interval_s=0.2):
        if warmup < 0:
            raise ValueError("banjia.bench: warmup must be >= 0")
        if batch_size is not None and not batch_size > 0:
            raise ValueError("banjia.bench: batch_size must be positive")
        self.warmup, self.batch_size, self.sample_unit = int(warmup), batch_size, sample_unit
        self.label, self.out, self.power, self.power_interval_s = label, out, power, power_interval_s
        self.device_type, self.device_index = _resolve_device(device)
        self._timer = _HostTimer() if self.device_type == "cpu" else _EventTimer(self.device_type)
        self._seen, self._sampler, self._notes = 0, None, []
        self.result = None

    @property
    def measured_steps(self):
        return max(0, self._seen - self.warmup)

    def __enter__(self):
        self._started = datetime.datetime.now(datetime.timezone.utc)
        self._scope = _reset_peak_memory(self.device_type)
        return self

    @contextlib.contextmanager
    def step(self):
        measured = self._seen >= self.warmup
        if measured and self._sampler is None:
            self._start_power()
        if measured:
            self._timer.start()
        yield
        if measured:
            self._timer.stop()
        self._seen += 1

    def _start_power(self):
        tool, note = power_tool(self.power, self.device_type)
        if note:
            self._notes.append(note)
        self._sampler = PowerSampler(tool, self.device_index, self.power_interval_s).__enter__() if tool else False

    def __exit__(self, exc_type, exc, tb):
        if self._sampler:
            self._sampler.__exit__(None, None, None)
        if exc_type is not None:
            return False  # nothing is written for a failed run
        times = self._timer.finish()
        if not times:
            raise ValueError(f"banjia.bench: no measured steps ({self._seen} ran, warmup={self.warmup})")
        self.result = self._document(times)
        if self.out:
            write_json_atomic(self.out, self.result)
        return False

    def _document(self, times):
        median = statistics.median(times)
        power = None
        if self._sampler:
            s = self._sampler
            if s.samples:
                power = {"tool": s.tool, "interval_s": s.interval_s, "samples_w": s.samples,
                         "median_w": statistics.median(s.samples), "failed_samples": s.errors}
            else:
                self._notes.append(f"power not sampled: {s.tool} gave no readable value ({s.errors} attempts)")
        return {
            "format": FORMAT, "version": SCHEMA_VERSION, "label": self.label,
            "created": self._started.isoformat(timespec="seconds"),
            "device": {"type": self.device_type, "index": self.device_index,
                       "name": _device_name(self.device_type, self.device_index)},
            "timing": {"method": self._timer.method, "unit": "ms", "warmup": self.warmup, "times": times},
            "batch_size": self.batch_size, "sample_unit": self.sample_unit,
            "summary": {"iterations": len(times), "median_ms": median,
                        "throughput_per_s": self.batch_size / (median / 1e3) if self.batch_size else None},
            "memory": _peak_memory(self.device_type, self._scope),
            "power": power,
            "environment": environment(self.device_type),
            "notes": self._notes,
        }


def recorder(**kwargs):
    """Context-manager form: `with recorder(out=...) as rec:` then `with rec.step(): ...` per step."""
    return Recorder(**kwargs)


def record(step_fn, *, warmup=5, repeat=30, min_time_s=1.0, max_repeat=10000, **kwargs):
    """Runs `step_fn()` warmup times unmeasured, then at least `repeat` times and until `min_time_s` of
    wall-clock time has passed (at most `max_repeat`). Writes the JSON to `out` and returns it as a dict.
    Keyword arguments: batch_size, sample_unit, label, out, device, power ("auto", "nvidia-smi",
    "npu-smi" or None), power_interval_s."""
    if repeat < 1 or max_repeat < repeat:
        raise ValueError("banjia.bench: need 1 <= repeat <= max_repeat")
    with Recorder(warmup=warmup, **kwargs) as rec:
        for _ in range(warmup):
            with rec.step():
                step_fn()
        t0 = time.perf_counter()
        while rec.measured_steps < max_repeat and (
                rec.measured_steps < repeat or time.perf_counter() - t0 < min_time_s):
            with rec.step():
                step_fn()
    return rec.result


def write_json_atomic(path, document):
    """Writes the recording as JSON, atomically: readers never see a half-written file."""
    write_atomic(path, json.dumps(document, indent=1, allow_nan=False) + "\n")
