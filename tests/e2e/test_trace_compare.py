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
    assert conv and float(conv[0]["baseline_count_per_step"]) > 0 and float(conv[0]["target_count_per_step"]) > 0
    page = html.read_text()
    assert "<svg" in page and "baseline" in page
    text = run("trace", "compare", gpu, npu, "--top", "1000")
    assert "step_wall_us" in text.stdout and "aten::convolution" in text.stdout


NPU_RANK0 = "ascend/msinsight/text/level1/rank0_ascend_pt"


def step_trace_rows(npu):
    with open(npu / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("Step")]


def test_two_gpu_steps_against_one_npu_step_compare_per_step(run, fixtures):
    gpu, npu = fixtures / H200 / "resnet50_fp32.json.gz", fixtures / NPU_RANK0
    events = oracle.load(gpu)
    n_gpu, n_npu = len(oracle.steps(events)), len(step_trace_rows(npu))
    assert (n_gpu, n_npu) == (2, 1)
    c = compare(run, gpu, npu)
    assert (c["baseline_steps"], c["target_steps"], c["per"]) == (n_gpu, n_npu, "step")
    ops = {o["name"]: o for o in c["ops"]}
    for name, (count, total_us) in oracle.op_totals(events).items():
        assert ops[name]["baseline_count"] == pytest.approx(count / n_gpu)
        assert ops[name]["baseline_us"] == pytest.approx(total_us / n_gpu, abs=2e-3)
    # Kernel classes (memcpy/memset are the "memory" class): the whole trace's device time, per step.
    kernel_us = sum(oracle.ns(e["dur"]) for e in events if e.get("ph") == "X" and e.get("cat") in oracle.DEVICE_CATS) / 1000
    assert sum(k["baseline_us"] for k in c["kernel_classes"]) == pytest.approx(kernel_us / n_gpu, rel=1e-9)
    conv = ops["aten::convolution"]
    text = run("trace", "compare", gpu, npu, "--top", "1000").stdout
    assert f"({n_gpu} steps)" in text and "every value is a mean per step" in text
    assert "kernel class (ms/step)" in text and "step (ms/step)" in text
    rows = {r["op"]: r for r in csv.DictReader(io.StringIO(run("trace", "compare", gpu, npu, "--format", "csv").stdout))}
    assert float(rows["aten::convolution"]["baseline_us_per_step"]) == pytest.approx(conv["baseline_us"], abs=1e-3)
    assert float(rows["aten::convolution"]["baseline_count_per_step"]) == pytest.approx(conv["baseline_count"])


def test_nothing_on_either_side_is_not_new(run, fixtures):
    base = fixtures / H200 / "antipattern_small_matmuls_slow.json.gz"
    target = fixtures / H200 / "antipattern_small_matmuls_fixed.json.gz"
    for p in (base, target):  # no communication kernels on either side: comm is 0 -> 0
        assert not [e for e in oracle.load(p) if e.get("cat") == "kernel" and e["name"].lower().startswith("nccl")]
    c = compare(run, base, target)
    comm = {m["name"]: m for m in c["step"]}["comm_us"]
    assert (comm["baseline_us"], comm["target_us"], comm["ratio"], comm["new"]) == (0, 0, None, False)
    text = run("trace", "compare", base, target).stdout
    comm_row = next(line for line in text.splitlines() if line.strip().startswith("comm_us"))
    assert comm_row.split()[-1] == "-"
    b, t = oracle.op_totals(oracle.load(base)), oracle.op_totals(oracle.load(target))
    for o in c["ops"]:
        (bn, bus), (tn, tus) = b.get(o["name"], (0, 0)), t.get(o["name"], (0, 0))
        assert o["new"] == (bus == 0 and (tus > 0 or (bn == 0 and tn > 0)))


def test_zero_baseline_against_non_zero_target_is_new(run, fixtures):
    gpu, npu = fixtures / H200 / "resnet50_fp32.json.gz", fixtures / NPU_RANK0
    kernels = [e for e in oracle.load(gpu) if e.get("cat") == "kernel"]
    assert not [k for k in kernels if k["name"].lower().startswith("nccl")]  # the GPU run has no communication
    comm_npu = sum(float(r["Communication(Not Overlapped)"]) for r in step_trace_rows(npu))
    assert comm_npu > 0
    c = compare(run, gpu, npu)
    comm = {m["name"]: m for m in c["step"]}["comm_us"]
    assert (comm["baseline_us"], comm["new"]) == (0, True)
    comm_row = next(l for l in run("trace", "compare", gpu, npu).stdout.splitlines() if l.strip().startswith("comm_us"))
    assert comm_row.split()[-1] == "new"
