"""`banjia trace ops`: a CPU profile made here with torch and an H200 fixture trace, each checked
against ops_oracle (an independent join of the trace JSON with data/ops and data/dispatch)."""
import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import ops_oracle

H200 = "gpu-h200/traces"

MODEL = textwrap.dedent("""
    import sys
    import torch, torch.nn as nn, torch.nn.functional as F
    import banjia

    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.norm = nn.LayerNorm(8 * 8 * 8)
            self.fc = nn.Linear(512, 10)

        def forward(self, x):
            y = self.fc(self.norm(torch.relu(self.conv(x)).flatten(1)))
            z = torch.fft.fft(y.double()).abs().float()           # float64 and complex128 ops
            e = torch.linalg.matrix_exp(y[:, :4, None].double() * y[:, None, :4].double())
            return torch.softmax(y + z, dim=-1) + F.huber_loss(y, z) + e.sum((1, 2)).float()[:, None]

    net, x = Net(), torch.randn(4, 3, 8, 8)
    print(banjia.profile(lambda: net(x).sum().backward(), steps=2, out=sys.argv[1]))
""")


def trace_ops(run, *args):
    r = run("trace", "ops", *args, "-f", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert len(report["summary"]["traces"]) == 1
    return report["summary"], report["summary"]["traces"][0]


def assert_matches_oracle(trace: dict, expected: dict) -> None:
    got = {(o["name"], o["status"]): o for o in trace["ops"]}
    assert set(got) == set(expected["rows"])
    for key, want in expected["rows"].items():
        o = got[key]
        assert o["calls"] == want["calls"], key
        assert o["own_calls"] == want["own_calls"], key
        assert o["self_us"] == pytest.approx(want["self_ns"] / 1000, abs=1e-3), key
        assert o["share"] == pytest.approx(want["self_ns"] / expected["step_ns"], abs=1e-9), key
        assert set(o["dtypes"]) == want["dtypes"], key
    assert trace["step_time_us"] == pytest.approx(expected["step_ns"] / 1000, abs=1e-3)
    assert trace["steps"] == expected["steps"]
    assert trace["ops_off_npu"] == expected["ops_off_npu"]
    assert trace["share_off_npu"] == pytest.approx(expected["share_off_npu"], abs=1e-9)
    pct = f"{100 * expected['share_off_npu']:.1f} %"
    assert trace["headline"] == f"{expected['ops_off_npu']} ops ({pct} of step time) will not run as NPU kernels"


@pytest.fixture(scope="module")
def cpu_profile(tmp_path_factory):
    out = tmp_path_factory.mktemp("prof")
    env = dict(os.environ, PYTHONPATH=str(ops_oracle.REPO / "python"))
    r = subprocess.run([sys.executable, "-c", MODEL, str(out)], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return pathlib.Path(r.stdout.strip().splitlines()[-1])


def test_cpu_profile_matches_independent_join(run, cpu_profile):
    summary, trace = trace_ops(run, cpu_profile)
    assert summary["torch_npu"] == "master"
    expected = ops_oracle.coverage(cpu_profile, ops_oracle.Data("master"))
    assert_matches_oracle(trace, expected)
    statuses = {o["status"] for o in trace["ops"]}
    # The model was written to reach each verdict: kernels, composites, a CPU fallback
    # (matrix_exp, huber_loss), callees inside kernels and dtypes outside documented limits (complex128 abs).
    assert {"npu_kernel", "composite", "fallback", "inside_npu_kernel", "dtype_unsupported"} <= statuses
    by_name = {(o["name"], o["status"]) for o in trace["ops"]}
    assert ("aten::linalg_matrix_exp", "fallback") in by_name
    assert ("aten::abs", "dtype_unsupported") in by_name
    assert trace["ops_off_npu"] > 0 and 0 < trace["share_off_npu"] < 1


def test_cpu_profile_older_data_set(run, cpu_profile):
    summary, trace = trace_ops(run, cpu_profile, "--torch-npu", "v2.1.0")
    assert summary["torch_npu"] == "v2.1.0"
    assert_matches_oracle(trace, ops_oracle.coverage(cpu_profile, ops_oracle.Data("v2.1.0")))


def test_h200_resnet50_matches_independent_join(run, fixtures):
    path = fixtures / H200 / "resnet50_fp32.json.gz"
    _, trace = trace_ops(run, path)
    expected = ops_oracle.coverage(path, ops_oracle.Data("master"))
    assert_matches_oracle(trace, expected)
    # cudnn_batch_norm is what batch_norm calls on CUDA only: not judged as a missing NPU kernel.
    assert ("aten::cudnn_batch_norm", "unknown") in {(o["name"], o["status"]) for o in trace["ops"]}


def test_h200_gpt2_bf16_matches_independent_join(run, fixtures):
    path = fixtures / H200 / "gpt2_sdpa_bf16.json.gz"
    _, trace = trace_ops(run, path)
    assert_matches_oracle(trace, ops_oracle.coverage(path, ops_oracle.Data("master")))


def test_csv_and_text(run, fixtures):
    path = fixtures / H200 / "resnet50_fp32.json.gz"
    r = run("trace", "ops", path, "-f", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    _, trace = trace_ops(run, path)
    assert len(rows) == len(trace["ops"])
    assert {(x["op"], x["status"], int(x["calls"])) for x in rows} == {(o["name"], o["status"], o["calls"]) for o in trace["ops"]}
    text = run("trace", "ops", path)
    assert text.returncode == 0
    assert trace["headline"] in text.stdout


def test_unknown_data_set_is_exit_2_listing_known(run, fixtures):
    r = run("trace", "ops", fixtures / H200 / "resnet50_fp32.json.gz", "--torch-npu", "9.9")
    assert r.returncode == 2
    assert r.stderr.strip() == "banjia: --torch-npu: no operator data for torch_npu '9.9' (known: v2.1.0, master)"


@pytest.mark.parametrize("layout", ["text", "db"])
def test_torch_npu_profile_directories(run, fixtures, layout):
    # A profile taken on an NPU already: its host ops are read from trace_view.json or the .db export.
    _, trace = trace_ops(run, fixtures / "ascend/msinsight" / layout / "level1/rank0_ascend_pt")
    names = {o["name"] for o in trace["ops"]}
    assert {"aten::convolution", "aten::convolution_backward"} <= names
    assert all(o["status"] in {"npu_kernel", "inside_npu_kernel", "composite"} for o in trace["ops"]
               if o["name"] in ("aten::convolution", "aten::convolution_backward", "aten::_convolution"))
    if layout == "db":
        assert trace["input_types"] is False  # the export has no "Input type" lists
