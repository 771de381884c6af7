"""The runtime's npu code paths, run in a subprocess against a stand-in torch_npu
(stand_in_torch_npu/torch_npu: registers "npu" as torch_npu does, with a host clock for events, fixed
allocator counters and a profiler that records how it is driven)."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")

HERE = pathlib.Path(__file__).resolve().parent
PYTHON_DIR = HERE.parents[1] / "python"

SCRIPT = r"""
import json, sys, time
import torch
import banjia, banjia.bench
from banjia import device

assert "torch_npu" not in sys.modules
out = {"resolved": str(device.resolve("npu")), "resolved_0": str(device.resolve("npu:0"))}
import torch_npu
doc = banjia.bench.record(lambda: time.sleep(0.01), warmup=1, repeat=3, min_time_s=0, power=None,
                          device="npu", out=None)
out["bench"] = {k: doc[k] for k in ("device", "timing", "memory")}
out["bench_torch_npu"] = doc["environment"]["torch_npu"]
out["bench_calls"] = torch_npu.calls[:]
del torch_npu.calls[:]
out["profile_result"] = banjia.profile(lambda: None, steps=2, out=sys.argv[1], device="npu")
out["profile_calls"] = [(c, repr(a)) for c, a in torch_npu.calls]
print(json.dumps(out))
"""


def run_with_stand_in(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE / "stand_in_torch_npu"), str(PYTHON_DIR)]))
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "prof")], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_npu_device_bench_and_profile(tmp_path):
    out = run_with_stand_in(tmp_path)
    # resolve imports torch_npu for "npu" and takes torch.npu.current_device() (1) when no index is given
    assert out["resolved"] == "npu:1" and out["resolved_0"] == "npu:0"

    bench = out["bench"]
    assert bench["device"] == {"type": "npu", "index": 1, "name": "Ascend stand-in"}
    assert bench["timing"]["method"] == "npu-event" and len(bench["timing"]["times"]) == 3
    assert all(t >= 10 for t in bench["timing"]["times"])  # each event pair spans a 10 ms sleep
    assert bench["memory"] == {"peak_allocated_bytes": 7 * 2**20, "peak_reserved_bytes": 9 * 2**20,
                               "peak_rss_bytes": None, "source": "torch.npu.max_memory_allocated", "scope": "run"}
    assert out["bench_calls"] == [["reset_peak_memory_stats", "npu:1"], ["synchronize", "npu:1"]]
    assert out["bench_torch_npu"] == "0.0.0+stand-in"

    assert out["profile_result"] == str(tmp_path / "prof")
    calls = out["profile_calls"]
    options = calls[0]
    assert options[0] == "profile"
    assert "'activities': ['CPU', 'NPU']" in options[1]
    assert f"'on_trace_ready': ('tensorboard_trace_handler', {str(tmp_path / 'prof')!r})" in options[1]
    assert "'record_shapes': True" in options[1]
    # wait 1 + warmup 1 + 2 recorded steps, each followed by a device sync and then step()
    assert [c for c, _ in calls[1:]] == ["synchronize", "step"] * 4
