"""`banjia trace summary` on real Kineto traces: numbers checked against trace_oracle (plain Python
over the same JSON), advisor rules against the article's slow/fixed fixture pairs."""
import csv
import io
import json

import pytest

import trace_oracle as oracle

H200 = "gpu-h200/traces"


def summary(run, *args):
    r = run("trace", "summary", *args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("pattern,rule", [
    ("small_matmuls", "small-gemm-batching"),
    ("conv_in_loop", "conv-in-loop"),
    ("host_device_sync", "host-device-sync"),
])
def test_article_pattern_fires_on_slow_and_not_on_fixed(run, fixtures, pattern, rule):
    slow = summary(run, fixtures / H200 / f"antipattern_{pattern}_slow.json.gz")
    fixed = summary(run, fixtures / H200 / f"antipattern_{pattern}_fixed.json.gz")
    hits = [f for f in slow["findings"] if f["rule"] == rule]
    assert hits, [f["rule"] for f in slow["findings"]]
    for f in hits:
        assert f["source"] and f["evidence"] and f["severity"] in ("info", "warning", "error")
        assert f["est_saving_us"] > 0
        assert f["suggestion"]
    assert not [f for f in fixed["findings"] if f["rule"] == rule]


def test_small_gemm_evidence_counts_the_matmuls(run, fixtures):
    path = fixtures / H200 / "antipattern_small_matmuls_slow.json.gz"
    events = oracle.load(path)
    n_mm = sum(1 for e in events if e.get("cat") == "cpu_op" and e["name"] == "aten::mm")
    f = [f for f in summary(run, path)["findings"] if f["rule"] == "small-gemm-batching"]
    assert len(f) == 1
    assert f"{n_mm} x aten::mm" in f[0]["evidence"]


@pytest.mark.parametrize("name", ["resnet50_fp32", "antipattern_host_device_sync_slow", "gpt2_sdpa_bf16",
                                  "antipattern_conv_in_loop_slow"])
def test_step_breakdown_matches_independent_computation(run, fixtures, name):
    path = fixtures / H200 / f"{name}.json.gz"
    expect = oracle.per_step(oracle.load(path))
    got = summary(run, path)["summary"]["traces"][0]["steps"]
    assert [s["name"] for s in got] == [e["name"] for e in expect]
    for g, e in zip(got, expect):
        assert g["wall_us"] == pytest.approx(e["wall_us"], abs=1e-3)
        assert g["compute_us"] == pytest.approx(e["compute_us"], abs=1e-3)
        assert g["memory_us"] == pytest.approx(e["memory_us"], abs=1e-3)
        assert g["idle_us"] == pytest.approx(e["wall_us"] - e["compute_us"] - e["memory_us"], abs=1e-3)
        assert g["kernels"] == e["kernels"]
        assert g["kernel_median_us"] == pytest.approx(e["median_us"], abs=1e-6)
        assert g["sync_points"] == e["syncs"]
        assert (g["h2d_count"], g["h2d_bytes"], g["d2h_count"], g["d2h_bytes"]) == (
            e["h2d"], e["h2d_bytes"], e["d2h"], e["d2h_bytes"])


@pytest.mark.parametrize("path", [
    "kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
    "kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "gpu-h200/traces/resnet50_bf16_channels_last.json.gz",
    "kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "kineto/hta/trace_diff/control/control.json.gz",  # 35 MB: parsed in parts on several cores
])
def test_kernel_statistics_and_launch_delay(run, fixtures, path):
    events = oracle.load(fixtures / path)
    count, median, short = oracle.kernel_stats(events)
    delays = oracle.launch_delays(events)
    t = summary(run, fixtures / path)["summary"]["traces"][0]
    assert t["kernels"]["count"] == count
    assert t["kernels"]["median_us"] == pytest.approx(median, abs=1e-6)
    assert t["kernels"]["short_share"] == pytest.approx(short, abs=1e-12)
    assert t["launch_delay"]["count"] == len(delays)
    if delays:
        import statistics
        assert t["launch_delay"]["median_us"] == pytest.approx(statistics.median(delays), abs=1e-6)
        assert t["launch_delay"]["max_us"] == pytest.approx(max(delays), abs=1e-6)


def test_op_totals_match_python(run, fixtures):
    path = fixtures / H200 / "resnet50_fp32.json.gz"
    expect = oracle.op_totals(oracle.load(path))
    r = run("trace", "summary", path, "--format", "csv", "--table", "ops", "--top", str(len(expect)))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert {row["op"] for row in rows} == set(expect)
    for row in rows:
        c, tot = expect[row["op"]]
        assert int(row["count"]) == c
        assert float(row["total_us"]) == pytest.approx(tot, abs=2e-3)
        assert float(row["self_us"]) <= float(row["total_us"]) + 1e-3


def test_top_ops_self_time_of_leaf_op_equals_total(run, fixtures):
    t = summary(run, fixtures / H200 / "antipattern_host_device_sync_slow.json.gz")["summary"]["traces"][0]
    empty = [o for o in t["top_ops_self"] + t["top_ops_total"] if o["name"] == "aten::empty"]
    assert empty and all(o["self_us"] == pytest.approx(o["total_us"]) for o in empty)


def test_cpu_only_trace(run, fixtures):
    path = fixtures / "kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    t = summary(run, path)["summary"]["traces"][0]
    events = oracle.load(path)
    assert t["kernels"]["count"] == 0
    assert t["devices"] == []
    total_ops = oracle.op_totals(events)
    got = {o["name"]: o for o in t["top_ops_total"]}
    for name, o in got.items():
        assert o["count"] == total_ops[name][0]


def test_csv_steps_table(run, fixtures):
    path = fixtures / H200 / "resnet50_fp32.json.gz"
    r = run("trace", "summary", path, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    expect = oracle.per_step(oracle.load(path))
    assert [row["step"] for row in rows] == [e["name"] for e in expect] + ["all"]
    assert float(rows[0]["compute_us"]) == pytest.approx(expect[0]["compute_us"], abs=1e-3)


def test_text_output_and_help(run, fixtures):
    r = run("trace", "summary", fixtures / H200 / "antipattern_conv_in_loop_slow.json.gz")
    assert r.returncode == 0
    assert "ProfilerStep#2" in r.stdout and "conv-in-loop" in r.stdout
    h = run("trace", "summary", "--help")
    assert h.stdout.count("banjia trace summary") >= 2
    # --fail-on warning turns findings into exit code 1
    r = run("trace", "summary", fixtures / H200 / "antipattern_conv_in_loop_slow.json.gz", "--fail-on", "warning")
    assert r.returncode == 1


def test_html_report_is_self_contained(run, fixtures, tmp_path):
    out = tmp_path / "r.html"
    r = run("trace", "summary", fixtures / H200 / "antipattern_small_matmuls_slow.json.gz", "--html", out)
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "small-gemm-batching" in page
    assert "<script src" not in page and "<link" not in page


def test_cpu_trace_made_by_banjia_profile(run, tmp_path):
    torch = pytest.importorskip("torch")
    import banjia
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    x = torch.randn(16, 32)
    path = banjia.profile(lambda: model(x).sum().backward(), steps=3, out=tmp_path, device="cpu")
    events = oracle.load(path)
    t = summary(run, path)["summary"]["traces"][0]
    assert [s["name"] for s in t["steps"]] == [n for n, _, _ in oracle.steps(events)]
    for s, (_, start, end) in zip(t["steps"], oracle.steps(events)):
        assert s["wall_us"] == pytest.approx((end - start) / 1000, abs=1e-3)
    expect = oracle.op_totals(events)
    for o in t["top_ops_total"]:
        assert (o["count"], o["total_us"]) == (expect[o["name"]][0], pytest.approx(expect[o["name"]][1], abs=1e-3))


@pytest.mark.parametrize("path", [
    "kineto/hta/trace_diff/control/control.json.gz",  # 75k events: several parts and event blocks
    "gpu-h200/traces/antipattern_small_matmuls_slow.json.gz",
])
def test_summary_json_is_identical_for_any_thread_count(run, fixtures, path):
    outs = []
    for jobs in ("1", "2", "3"):
        r = run("trace", "summary", fixtures / path, "--format", "json", "-j", jobs)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] == outs[2]
