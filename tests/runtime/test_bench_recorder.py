"""banjia.bench recorder on cpu (Debian torch): timing, warm-up, memory, power tools, environment, writing."""
import json
import os
import pathlib
import stat
import statistics
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")
import banjia.bench as bench  # noqa: E402
from banjia._bench_power import parse_npu_smi  # noqa: E402

NPU_SMI_INFO = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.rc1                 Version: 24.1.rc1                                             |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 101.8       43                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3318 / 65536         |
+===========================+===============+====================================================+
| 1     910B3               | OK            | 96.4        40                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          3318 / 65536         |
+===========================+===============+====================================================+
"""


def fake_tool(directory, name, body):
    path = directory / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def tool_dir(tmp_path, monkeypatch):
    """A PATH holding only our fake tools (plus the shell they need)."""
    d = tmp_path / "bin"
    d.mkdir()
    monkeypatch.setenv("PATH", f"{d}:/bin:/usr/bin")
    return d


def small_step():
    model = torch.nn.Linear(64, 64)
    x = torch.randn(32, 64)
    return lambda: model(x).sum().backward()


def test_record_cpu_document(tmp_path):
    calls = []
    step = small_step()
    out = tmp_path / "runs" / "cpu.json"
    doc = bench.record(lambda: (calls.append(1), step()), warmup=3, repeat=12, min_time_s=0, batch_size=32,
                       label="cpu-run", out=str(out))
    assert json.loads(out.read_text()) == doc
    assert doc["format"] == "banjia.bench" and doc["version"] == 1 and doc["label"] == "cpu-run"
    times = doc["timing"]["times"]
    assert len(times) == 12 and len(calls) == 3 + 12  # warm-up ran but was not measured
    assert all(t > 0 for t in times) and doc["timing"]["unit"] == "ms" and doc["timing"]["method"] == "perf_counter"
    assert doc["device"]["type"] == "cpu"
    assert doc["summary"]["median_ms"] == pytest.approx(statistics.median(times))
    assert doc["summary"]["throughput_per_s"] == pytest.approx(32 / (statistics.median(times) / 1e3))
    assert doc["memory"]["peak_rss_bytes"] > 0 and doc["memory"]["peak_allocated_bytes"] is None
    assert doc["power"] is None and any("power not sampled" in n for n in doc["notes"])
    assert doc["environment"]["torch"] == torch.__version__
    assert [p.name for p in out.parent.iterdir()] == ["cpu.json"]  # no temp file left behind


def test_record_cpu_memory_is_the_peak_of_the_run():
    """A step that allocates (and frees) n bytes raises the recorded peak RSS by at least n over the
    RSS before the run; a later run without the allocation records a peak below it again. In a fresh
    process: in this one, memory that other tests' leftovers free during the run lowers the peak below
    what the allocation adds."""
    code = """
import torch, banjia.bench as bench
def vm_rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
n_bytes = 160 * 2**20
before = vm_rss()
big = bench.record(lambda: torch.ones(n_bytes // 4).sum(), warmup=1, repeat=3, min_time_s=0, out=None)
mem = big["memory"]
assert mem["source"] == "/proc/self/status VmHWM" and mem["peak_allocated_bytes"] is None, mem
assert mem["peak_rss_bytes"] >= before + 0.9 * n_bytes, (mem, before)
small = bench.record(lambda: torch.ones(16).sum(), warmup=1, repeat=3, min_time_s=0, out=None)["memory"]
assert mem["scope"] == small["scope"] == "run", (mem, small)  # Linux: VmHWM reset through /proc/self/clear_refs
assert small["peak_rss_bytes"] < mem["peak_rss_bytes"] - 0.5 * n_bytes, (small, mem)
"""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc/self/status")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(pathlib.Path(bench.__file__).parents[1])))
    assert r.returncode == 0, r.stderr


class FakeEvent:
    """torch.cuda.Event's interface over the host clock."""

    def __init__(self, enable_timing=False):
        assert enable_timing
        self.t = None

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


def test_record_on_an_accelerator_uses_its_events_and_allocator(monkeypatch, tmp_path):
    """The cuda path, with torch.cuda's functions replaced by a stand-in (this torch has no cuda)."""
    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 3)
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: calls.append(("sync", d)))
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda d=None: calls.append(("reset", d)))
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda d=None: 123 * 2**20)
    monkeypatch.setattr(torch.cuda, "max_memory_reserved", lambda d=None: 456 * 2**20)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "Stand-in GPU")
    doc = bench.record(lambda: time.sleep(0.01), warmup=1, repeat=4, min_time_s=0, power=None, device="cuda",
                       out=str(tmp_path / "gpu.json"))
    cuda3 = torch.device("cuda", 3)
    assert doc["device"] == {"type": "cuda", "index": 3, "name": "Stand-in GPU"}
    assert doc["timing"]["method"] == "cuda-event" and len(doc["timing"]["times"]) == 4
    assert all(t >= 10 for t in doc["timing"]["times"])  # each event pair spans one 10 ms sleep
    assert doc["memory"] == {"peak_allocated_bytes": 123 * 2**20, "peak_reserved_bytes": 456 * 2**20,
                             "peak_rss_bytes": None, "source": "torch.cuda.max_memory_allocated", "scope": "run"}
    assert calls == [("reset", cuda3), ("sync", cuda3)]  # reset once before, one sync to read the events


def test_warmup_is_excluded_and_times_are_step_times(tmp_path):
    n = [0]

    def step():
        n[0] += 1
        time.sleep(0.2 if n[0] <= 2 else 0.005)  # slow first steps, as a compile/allocator warm-up

    doc = bench.record(step, warmup=2, repeat=5, min_time_s=0, out=str(tmp_path / "w.json"))
    times = doc["timing"]["times"]
    assert len(times) == 5
    assert all(4.5 <= t < 199 for t in times), times  # a warm-up step (>= 200 ms) was never measured


def test_min_time_extends_the_run(tmp_path):
    start = time.perf_counter()
    doc = bench.record(lambda: time.sleep(0.01), warmup=0, repeat=2, min_time_s=0.25, out=str(tmp_path / "m.json"))
    assert time.perf_counter() - start >= 0.25
    assert len(doc["timing"]["times"]) > 2  # beyond `repeat`
    assert sum(doc["timing"]["times"]) >= 0.25 * 1e3 * 0.9


def test_context_manager_form(tmp_path):
    step = small_step()
    out = tmp_path / "ctx.json"
    with bench.recorder(warmup=3, batch_size=32, label="ctx", out=str(out)) as rec:
        for _ in range(8):
            with rec.step():
                step()
    doc = json.loads(out.read_text())
    assert len(doc["timing"]["times"]) == 5 and doc["timing"]["warmup"] == 3 and rec.result == doc


def test_failed_run_writes_nothing(tmp_path):
    out = tmp_path / "fail.json"
    with pytest.raises(RuntimeError):
        with bench.recorder(warmup=0, out=str(out)) as rec:
            with rec.step():
                raise RuntimeError("step failed")
    assert not out.exists()
    with pytest.raises(ValueError, match="no measured steps"):
        with bench.recorder(warmup=5, out=str(out)) as rec:
            with rec.step():
                pass
    assert not out.exists()


def test_power_from_fake_nvidia_smi(tool_dir, tmp_path):
    log = tmp_path / "args.txt"
    fake_tool(tool_dir, "nvidia-smi", f'echo "$@" >> {log}\necho 123.5\n')
    doc = bench.record(lambda: time.sleep(0.01), warmup=1, repeat=3, min_time_s=0.5, power="nvidia-smi",
                       power_interval_s=0.05, batch_size=8, out=str(tmp_path / "p.json"))
    p = doc["power"]
    assert p["tool"] == "nvidia-smi" and len(p["samples_w"]) >= 2
    assert set(p["samples_w"]) == {123.5} and p["median_w"] == 123.5
    assert "--query-gpu=power.draw --format=csv,noheader,nounits -i 0" in log.read_text()


def test_power_from_fake_npu_smi(tool_dir, tmp_path, monkeypatch):
    (tmp_path / "npu.txt").write_text(NPU_SMI_INFO)
    fake_tool(tool_dir, "npu-smi", f'[ "$1" = info ] || exit 1\ncat {tmp_path / "npu.txt"}\n')
    doc = bench.record(lambda: time.sleep(0.01), warmup=0, repeat=3, min_time_s=0, power="npu-smi",
                       power_interval_s=0.05, out=str(tmp_path / "n.json"))
    assert set(doc["power"]["samples_w"]) == {101.8}
    # A logical index maps through ASCEND_RT_VISIBLE_DEVICES to the physical NPU id npu-smi prints.
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "1")
    assert parse_npu_smi(NPU_SMI_INFO, 0) == 96.4


def test_absent_or_broken_power_tool_gives_null(tool_dir, tmp_path):
    doc = bench.record(lambda: None, warmup=0, repeat=3, min_time_s=0, power="nvidia-smi", out=str(tmp_path / "a.json"))
    assert doc["power"] is None and "nvidia-smi not found on PATH" in " ".join(doc["notes"])
    fake_tool(tool_dir, "nvidia-smi", "echo '[N/A]'\nexit 3\n")
    doc = bench.record(lambda: None, warmup=0, repeat=3, min_time_s=0, power="nvidia-smi", out=str(tmp_path / "b.json"))
    assert doc["power"] is None and "gave no readable value" in " ".join(doc["notes"])
    with pytest.raises(ValueError):
        bench.record(lambda: None, power="wattmeter", out=str(tmp_path / "c.json"))


def test_environment_capture(tmp_path, monkeypatch):
    monkeypatch.setenv("TASK_QUEUE_ENABLE", "2")
    monkeypatch.setenv("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")
    monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:128")
    monkeypatch.setenv("HCCL_API_TOKEN", "do-not-record")
    monkeypatch.setenv("UNRELATED_VARIABLE", "x")
    cann = tmp_path / "ascend"
    cann.mkdir()
    (cann / "ascend_toolkit_install.info").write_text("package_name=Ascend-cann-toolkit\nversion=8.0.RC3\n")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(cann))
    env = bench.environment()
    assert env["env"]["TASK_QUEUE_ENABLE"] == "2"
    assert env["env"]["PYTORCH_NPU_ALLOC_CONF"] == "expandable_segments:True"
    assert env["env"]["PYTORCH_CUDA_ALLOC_CONF"] == "max_split_size_mb:128"
    assert "HCCL_API_TOKEN" not in env["env"] and "UNRELATED_VARIABLE" not in env["env"]
    assert env["cann"] == "8.0.RC3" and env["torch"] == torch.__version__ and env["torch_npu"] is None


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        bench.record(lambda: None, repeat=0, out=str(tmp_path / "x.json"))
    with pytest.raises(ValueError):
        bench.recorder(batch_size=0)
    with pytest.raises(ValueError):
        bench.recorder(device="meta")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="is_available"):
            bench.recorder(device="cuda")


def test_recording_is_read_by_bench_compare(tmp_path):
    """Round trip: two cpu recordings compared by the binary (skipped when it is not built)."""
    binary = os.environ.get("BANJIA_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "src", "banjia"))
    if not os.path.exists(binary):
        pytest.skip("banjia binary not built")
    fast, slow = tmp_path / "fast.json", tmp_path / "slow.json"
    bench.record(lambda: time.sleep(0.002), warmup=1, repeat=15, min_time_s=0, batch_size=4, label="fast", out=str(fast))
    bench.record(lambda: time.sleep(0.02), warmup=1, repeat=15, min_time_s=0, batch_size=4, label="slow", out=str(slow))
    r = subprocess.run([binary, "bench", "compare", "-f", "json", str(slow), str(fast)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [x["label"] for x in doc["runs"]] == ["slow", "fast"]
    step = doc["runs"][1]["vs_baseline"][0]
    # sleep() on a busy machine can jitter past the 10 % CV limit; then no direction may be claimed.
    noisy = any(w.startswith("too noisy") for run_doc in doc["runs"] for w in run_doc["warnings"])
    assert step["metric"] == "step_time" and step["verdict"] == ("inconclusive" if noisy else "faster")
    assert step["ratio"] < 0.5
    assert doc["runs"][0]["memory_kind"] == "rss" and doc["runs"][0]["device"] == "cpu"
