"""banjia.profile on CPU (Debian torch): the trace it writes has the steps and ops summary needs."""
import json

import pytest

torch = pytest.importorskip("torch")
import banjia  # noqa: E402


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


def test_profile_without_a_device_uses_the_selected_one(tmp_path):
    path = banjia.profile(_model_step(), steps=1, out=tmp_path / "auto")
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    has_kernels = any(e.get("cat") == "kernel" for e in events)
    assert has_kernels == (banjia.device.default_device_type() == "cuda")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="is_available"):
            banjia.profile(_model_step(), steps=1, out=tmp_path / "x", device="cuda")
