"""`banjia trace compare`: op types joined by name (with --map), step metrics side by side."""
import csv
import io
import json

import pytest

import trace_oracle as oracle

H200 = "gpu-h200/traces"


def compare(run, *args):
    r = run("trace", "compare", *args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["summary"]


def test_before_after_op_join(run, fixtures):
    base = fixtures / H200 / "antipattern_small_matmuls_slow.json.gz"
    target = fixtures / H200 / "antipattern_small_matmuls_fixed.json.gz"
    b, t = oracle.op_totals(oracle.load(base)), oracle.op_totals(oracle.load(target))
    c = compare(run, base, target)
    ops = {o["name"]: o for o in c["ops"]}
    assert set(ops) == set(b) | set(t)
    for name, o in ops.items():
        assert o["baseline_count"] == b.get(name, (0, 0))[0]
        assert o["target_count"] == t.get(name, (0, 0))[0]
        assert o["baseline_us"] == pytest.approx(b.get(name, (0, 0))[1], abs=2e-3)
        assert o["target_us"] == pytest.approx(t.get(name, (0, 0))[1], abs=2e-3)
    deltas = [o["delta_us"] for o in c["ops"]]
    assert deltas == sorted(deltas, reverse=True)  # largest regression first
    wall = {m["name"]: m for m in c["step"]}["step_wall_us"]
    exp_b = oracle.per_step(oracle.load(base))[0]["wall_us"]
    exp_t = oracle.per_step(oracle.load(target))[0]["wall_us"]
    assert wall["baseline_us"] == pytest.approx(exp_b, abs=1e-3)
    assert wall["ratio"] == pytest.approx(exp_t / exp_b, rel=1e-6)


def test_name_map_merges_ops(run, fixtures, tmp_path):
    base = fixtures / H200 / "antipattern_small_matmuls_slow.json.gz"
    target = fixtures / H200 / "antipattern_small_matmuls_fixed.json.gz"
    m = tmp_path / "map.csv"
    m.write_text("# baseline,target\naten::matmul,aten::bmm\n")
    ops = {o["name"]: o for o in compare(run, base, target, "--map", m)["ops"]}
    assert "aten::bmm" not in ops
    assert ops["aten::matmul"]["target_count"] == 1 and ops["aten::matmul"]["baseline_count"] == 256
    bad = tmp_path / "bad.csv"
    bad.write_text("only_one_column\n")
    r = run("trace", "compare", base, target, "--map", bad)
    assert r.returncode == 2 and str(bad) in r.stderr


def test_gpu_vs_npu_csv_and_html(run, fixtures, tmp_path):
    gpu = fixtures / H200 / "resnet50_fp32.json.gz"
    npu = fixtures / "ascend/msinsight/text/level1/rank0_ascend_pt"
    html = tmp_path / "c.html"
    r = run("trace", "compare", gpu, npu, "--format", "csv", "--html", html)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    conv = [x for x in rows if x["op"] == "aten::convolution"]
    assert conv and int(conv[0]["baseline_count"]) > 0 and int(conv[0]["target_count"]) > 0
    page = html.read_text()
    assert "<svg" in page and "baseline" in page
    text = run("trace", "compare", gpu, npu, "--top", "1000")
    assert "step_wall_us" in text.stdout and "aten::convolution" in text.stdout
