"""banjia.profile on CPU (Debian torch): the trace it writes has the steps and ops summary needs."""
import json
import pathlib
import re
import subprocess
import tomllib

import pytest

torch = pytest.importorskip("torch")
import banjia  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]


def _model_step():
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)

    def step():
        model(x).sum().backward()

    return step


def test_profile_writes_kineto_trace_with_steps(tmp_path):
    path = banjia.profile(_model_step(), steps=3, out=tmp_path / "prof", device="cpu")
    with open(path) as f:
        trace = json.load(f)
    # Kineto builds write {"traceEvents": [...]}; torch builds without Kineto (Debian's) a bare list.
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    steps = sorted({e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")})
    assert len(steps) == 3  # wait=1, warmup=1 are not recorded
    ops = [e for e in events if e.get("cat", "cpu_op") in ("cpu_op", "Operator") and e.get("ph") == "X"]
    assert any(e["name"] == "aten::linear" for e in ops)
    if isinstance(trace, dict):  # record_shapes=True reaches Kineto traces (the advisors use shapes)
        assert any("Input Dims" in e.get("args", {}) for e in ops)


def test_profile_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        banjia.profile(lambda: None, steps=0, out=tmp_path)
    with pytest.raises(ValueError):
        banjia.profile(lambda: None, steps=1, wait=-1, out=tmp_path)


def _summary(banjia_bin, path):
    r = subprocess.run([banjia_bin, "trace", "summary", str(path), "--format", "json"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _min_repeats(rule):
    with open(REPO / "data/trace/advisors.toml", "rb") as f:
        return next(r for r in tomllib.load(f)["rule"] if r["id"] == rule)["min_repeats"]


def _recorded_steps(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return sorted({e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")},
                  key=lambda n: int(n.split("#")[1]))


def test_cpu_profile_of_a_conv_per_item_loop_fires_conv_in_loop(tmp_path, banjia_bin):
    conv = torch.nn.Conv2d(3, 4, 3)
    x = torch.randn(10, 3, 8, 8)
    per_step = x.shape[0]  # one batch-1 convolution per item
    assert per_step >= _min_repeats("conv-in-loop")

    def step():
        with torch.no_grad():
            for i in range(x.shape[0]):
                conv(x[i:i + 1])

    path = banjia.profile(step, steps=2, out=tmp_path / "loop", device="cpu")
    d = _summary(banjia_bin, path)
    hits = [f for f in d["findings"] if f["rule"] == "conv-in-loop"]
    steps = _recorded_steps(path)
    assert len(steps) == 2
    # The same pattern in every step is one finding that names the steps; the evidence has each step's count.
    assert len(hits) == 1
    assert hits[0]["message"].endswith(f" in {len(steps)} steps ({', '.join(steps)})")
    evidence = hits[0]["evidence"].split("; ")
    assert [e.split(": ", 1)[0] for e in evidence] == steps
    for e in evidence:
        assert f": {per_step} x aten::convolution with batch-1 input" in e
        dims = json.loads(re.search(r"batch-1 input (\[.*\]), host time", e).group(1))
        assert dims[:3] == [list(x[0:1].shape), list(conv.weight.shape), list(conv.bias.shape)]
    assert hits[0]["est_saving_us"] > 0


def test_cpu_profile_of_a_batched_conv_does_not_fire_conv_in_loop(tmp_path, banjia_bin):
    conv = torch.nn.Conv2d(3, 4, 3)
    x = torch.randn(10, 3, 8, 8)

    def step():
        with torch.no_grad():
            conv(x)

    path = banjia.profile(step, steps=2, out=tmp_path / "batched", device="cpu")
    d = _summary(banjia_bin, path)
    trace = d["summary"]["traces"][0]
    assert "conv-in-loop" not in [s["rule"] for s in trace["skipped_rules"]]  # it ran, on recorded shapes
    assert {o["name"]: o["count"] for o in trace["top_ops_total"]}.get("aten::convolution") == 2  # one a step
    assert not [f for f in d["findings"] if f["rule"] == "conv-in-loop"]


def test_profile_without_a_device_uses_the_selected_one(tmp_path):
    path = banjia.profile(_model_step(), steps=1, out=tmp_path / "auto")
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    has_kernels = any(e.get("cat") == "kernel" for e in events)
    assert has_kernels == (banjia.device.default_device_type() == "cuda")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="is_available"):
            banjia.profile(_model_step(), steps=1, out=tmp_path / "x", device="cuda")
