"""banjia.bench: record a training/inference step the same way on cpu, cuda and npu.

    import banjia.bench
    banjia.bench.record(step, batch_size=64, label="gpu", out="bench/gpu.json")

    with banjia.bench.recorder(batch_size=64, label="npu", out="bench/npu.json") as rec:
        for batch in loader:
            with rec.step():
                train_step(batch)

Then `banjia bench compare bench/gpu.json bench/npu.json` prints the table. The JSON schema
("format": "banjia.bench", "version": 1) is documented in docs/bench.md.

Timing: device events (torch.cuda.Event / torch.npu.Event) on cuda and npu, so the time is what the
device spent between the two events; time.perf_counter on cpu. Warm-up steps are never measured.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import re
import statistics
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal

from banjia import device as _device
from banjia._bench_power import PowerSampler, power_tool
from banjia._io import write_atomic

if TYPE_CHECKING:
    import torch

    from banjia.device import DeviceLike

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


class _HostTimer:
    """perf_counter around the step; the step has finished when it returns on cpu."""
    method = "perf_counter"

    def __init__(self) -> None:
        self._t0 = 0.0
        self.times_ms: list[float] = []

    def start(self) -> None:
        self._t0 = time.perf_counter()

    def stop(self) -> None:
        self.times_ms.append((time.perf_counter() - self._t0) * 1e3)

    def finish(self) -> list[float]:
        return self.times_ms


class _EventTimer:
    """Device events recorded on the current stream; read once at the end so timing never syncs."""

    def __init__(self, device: torch.device) -> None:
        self.method = f"{device.type}-event"
        self._device = device
        self._mod = _device.device_module(device.type)
        self._pairs: list[tuple[Any, Any]] = []
        self._start: Any = None

    def start(self) -> None:
        self._start = self._mod.Event(enable_timing=True)
        self._start.record()

    def stop(self) -> None:
        end = self._mod.Event(enable_timing=True)
        end.record()
        self._pairs.append((self._start, end))

    def finish(self) -> list[float]:
        _device.synchronize(self._device)
        return [float(s.elapsed_time(e)) for s, e in self._pairs]


def _memory_document(peak: _device.PeakMemory) -> dict[str, Any]:
    return {"peak_allocated_bytes": peak.allocated_bytes, "peak_reserved_bytes": peak.reserved_bytes,
            "peak_rss_bytes": peak.rss_bytes, "source": peak.source,
            "scope": "run" if peak.since_reset else "process"}


def environment() -> dict[str, Any]:
    """Versions and the relevant environment variables, as recorded in every run."""
    import torch

    env = {k: v for k, v in sorted(os.environ.items())
           if (k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES) and not _SECRET.search(k)}
    return {"python": platform.python_version(), "platform": platform.platform(), **_device.versions(),
            "cpu_threads": torch.get_num_threads(), "env": env}


# ------------------------------------------------------------------------------------------- recording

class Recorder:
    """Times steps one by one; the first `warmup` steps are run but not measured. See `recorder()`."""

    def __init__(self, *, warmup: int = 5, batch_size: float | None = None, sample_unit: str = "samples",
                 label: str | None = None, out: str | os.PathLike[str] | None = "bench/run.json",
                 device: DeviceLike | None = None, power: str | None = "auto", power_interval_s: float = 0.2):
        if warmup < 0:
            raise ValueError("banjia.bench: warmup must be >= 0")
        if batch_size is not None and not batch_size > 0:
            raise ValueError("banjia.bench: batch_size must be positive")
        self.warmup, self.batch_size, self.sample_unit = int(warmup), batch_size, sample_unit
        self.label, self.out, self.power, self.power_interval_s = label, out, power, power_interval_s
        self.device = _device.resolve(device)
        self.device_type = self.device.type
        self.device_index = self.device.index if self.device.index is not None else 0
        self._timer: _HostTimer | _EventTimer = _HostTimer() if self.device_type == "cpu" else _EventTimer(self.device)
        self._seen = 0
        self._sampler: PowerSampler | None = None
        self._power_started = False
        self._notes: list[str] = []
        self._started = datetime.datetime.now(datetime.timezone.utc)
        self._reset_done = False
        self.result: dict[str, Any] | None = None

    @property
    def measured_steps(self) -> int:
        return max(0, self._seen - self.warmup)

    def __enter__(self) -> Recorder:
        self._started = datetime.datetime.now(datetime.timezone.utc)
        self._reset_done = _device.reset_peak_memory(self.device)
        return self

    @contextlib.contextmanager
    def step(self) -> Iterator[None]:
        measured = self._seen >= self.warmup
        if measured and not self._power_started:
            self._start_power()
        if measured:
            self._timer.start()
        yield
        if measured:
            self._timer.stop()
        self._seen += 1

    def _start_power(self) -> None:
        self._power_started = True
        tool, note = power_tool(self.power, self.device_type)
        if note:
            self._notes.append(note)
        if tool:
            self._sampler = PowerSampler(tool, self.device_index, self.power_interval_s).__enter__()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        if self._sampler is not None:
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

    def _document(self, times: list[float]) -> dict[str, Any]:
        median = statistics.median(times)
        power = None
        if self._sampler is not None:
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
                       "name": _device.device_name(self.device)},
            "timing": {"method": self._timer.method, "unit": "ms", "warmup": self.warmup, "times": times},
            "batch_size": self.batch_size, "sample_unit": self.sample_unit,
            "summary": {"iterations": len(times), "median_ms": median,
                        "throughput_per_s": self.batch_size / (median / 1e3) if self.batch_size else None},
            "memory": _memory_document(_device.peak_memory(self.device, self._reset_done)),
            "power": power,
            "environment": environment(),
            "notes": self._notes,
        }


def recorder(*, warmup: int = 5, batch_size: float | None = None, sample_unit: str = "samples",
             label: str | None = None, out: str | os.PathLike[str] | None = "bench/run.json",
             device: DeviceLike | None = None, power: str | None = "auto", power_interval_s: float = 0.2) -> Recorder:
    """Context-manager form: `with recorder(out=...) as rec:` then `with rec.step(): ...` per step."""
    return Recorder(warmup=warmup, batch_size=batch_size, sample_unit=sample_unit, label=label, out=out,
                    device=device, power=power, power_interval_s=power_interval_s)


def record(step_fn: Callable[[], object], *, warmup: int = 5, repeat: int = 30, min_time_s: float = 1.0,
           max_repeat: int = 10000, batch_size: float | None = None, sample_unit: str = "samples",
           label: str | None = None, out: str | os.PathLike[str] | None = "bench/run.json",
           device: DeviceLike | None = None, power: str | None = "auto",
           power_interval_s: float = 0.2) -> dict[str, Any]:
    """Runs `step_fn()` warmup times unmeasured, then at least `repeat` times and until `min_time_s` of
    wall-clock time has passed (at most `max_repeat`). Writes the JSON to `out` (unless it is None)
    and returns it as a dict. `power`: "auto", "nvidia-smi", "npu-smi" or None."""
    if repeat < 1 or max_repeat < repeat:
        raise ValueError("banjia.bench: need 1 <= repeat <= max_repeat")
    rec = recorder(warmup=warmup, batch_size=batch_size, sample_unit=sample_unit, label=label, out=out,
                   device=device, power=power, power_interval_s=power_interval_s)
    with rec:
        for _ in range(warmup):
            with rec.step():
                step_fn()
        t0 = time.perf_counter()
        while rec.measured_steps < max_repeat and (
                rec.measured_steps < repeat or time.perf_counter() - t0 < min_time_s):
            with rec.step():
                step_fn()
    assert rec.result is not None  # set by a successful __exit__
    return rec.result


def write_json_atomic(path: str | os.PathLike[str], document: dict[str, Any]) -> None:
    """Writes the recording as JSON, atomically: readers never see a half-written file."""
    write_atomic(path, json.dumps(document, indent=1, allow_nan=False) + "\n")
