"""banjia compare on the real H200 dumps: metrics checked against numpy, verdicts, localisation."""
import json
import math

import numpy as np
import pytest

from compare_reference import load_banjia, metrics, tolerance

DUMPS = "gpu-h200/dumps"


def compare_json(run, fixtures, a, b, *extra):
    p = run("compare", fixtures / DUMPS / a, fixtures / DUMPS / b, "--format", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def forward_keys(index):
    return [e["key"] for e in index["entries"] if ".forward." in e["key"]]


def test_cuda_fp32_vs_cpu_fp32_passes_and_matches_numpy(run, fixtures):
    rc, out = compare_json(run, fixtures, "tinygpt_cuda_fp32", "tinygpt_cpu_fp32")
    assert rc == 0
    ia, za = load_banjia(fixtures / DUMPS / "tinygpt_cuda_fp32")
    _, zb = load_banjia(fixtures / DUMPS / "tinygpt_cpu_fp32")
    assert len(out["entries"]) == len(ia["entries"])
    assert {e["status"] for e in out["entries"]} == {"pass"}
    assert out["first_divergence"] is None
    assert out["unmatched"] == {"a": [], "b": []}
    for e in out["entries"]:
        dt = next(x["dtype"] for x in ia["entries"] if x["key"] == e["key"])
        exp = metrics(za[e["key"]], zb[e["key"]], *tolerance(dt, dt))
        for name, value in exp.items():
            assert e[name] == pytest.approx(value, rel=1e-9, abs=1e-300), (e["key"], name)


@pytest.mark.parametrize("model", ["tinygpt", "resnet18"])
@pytest.mark.parametrize("low", ["bf16amp", "fp16"])
def test_low_precision_vs_fp32_bounded_and_growing(run, fixtures, model, low):
    a, b = f"{model}_cuda_{low}", f"{model}_cuda_fp32"
    _, out = compare_json(run, fixtures, a, b)
    ia, za = load_banjia(fixtures / DUMPS / a)
    _, zb = load_banjia(fixtures / DUMPS / b)
    by_key = {e["key"]: e for e in out["entries"]}
    dtypes = {e["key"]: e["dtype"] for e in ia["entries"]}
    rel = []
    keys = forward_keys(ia)
    if model == "resnet18":
        # The fixture README: training-mode BatchNorm over batch 2 with 1x1 spatial size makes layer4
        # ill-conditioned (even TF32 vs strict fp32 differ strongly there). Judge the layers before it.
        keys = keys[:next(i for i, k in enumerate(keys) if ".layer4." in k)]
    for k in keys:
        exp = metrics(za[k], zb[k], *tolerance(dtypes[k], "float32"))
        got = by_key[k]
        assert got["rel_l2_err"] == pytest.approx(exp["rel_l2_err"], rel=1e-9, abs=1e-15)
        assert got["allclose_mismatch_fraction"] == pytest.approx(exp["allclose_mismatch_fraction"])
        rel.append(exp["rel_l2_err"])
    # Bounded: the error stays within a few percent of the signal; growing: the late layers carry
    # more error than the first layer that differs at all.
    assert max(rel) < 0.05
    first_nonzero = next(r for r in rel if r > 0)
    assert max(rel[len(rel) // 2:]) > first_nonzero
    assert out["first_nonfinite"] == {"a": None, "b": None, "masks_skipped": {"a": 0, "b": 0}}


@pytest.mark.parametrize("model", ["tinygpt", "resnet18"])
def test_fp16_overflow_located_where_reference_leaves_fp16_range(run, fixtures, model):
    a, ref = f"{model}_cuda_fp16_overflow", f"{model}_cuda_fp32_scaled_reference"
    rc, out = compare_json(run, fixtures, a, ref)
    assert rc == 1
    ir, zr = load_banjia(fixtures / DUMPS / ref)
    beyond = next(k for k in forward_keys(ir) if np.abs(zr[k]).max() > 65504)
    assert out["first_nonfinite"]["a"]["key"] == beyond
    assert out["first_nonfinite"]["b"] is None
    assert out["first_fp16_overflow_in_reference"]["key"] == beyond
    _, za = load_banjia(fixtures / DUMPS / a)
    entry = next(e for e in out["entries"] if e["key"] == beyond)
    assert entry["status"] == "fail"
    assert entry["nan_a"] + entry["inf_a"] == int((~np.isfinite(za[beyond])).sum())
    assert entry["would_overflow_fp16"] == int((np.abs(zr[beyond]) > 65504).sum())


def test_ln_eps_slip_localised_as_largest_error_jump(run, fixtures):
    a, b = "tinygpt_cuda_fp32_bug_ln_eps", "tinygpt_cuda_fp32"
    _, out = compare_json(run, fixtures, a, b)
    ia, za = load_banjia(fixtures / DUMPS / a)
    _, zb = load_banjia(fixtures / DUMPS / b)
    keys = [e["key"] for e in ia["entries"]]
    best, best_factor, baseline = None, 0.0, 0.0
    errors = [metrics(za[k], zb[k])["rel_l2_err"] for k in keys]
    growth = out["error_growth"]
    assert growth["first_nonzero"]["key"] == next(k for k, e in zip(keys, errors) if e > 0)
    assert growth["peak"]["key"] == keys[errors.index(max(errors))]
    assert growth["last"]["key"] == keys[-1]
    for k, e in zip(keys, errors):
        if baseline > 0 and e / baseline > best_factor:
            best, best_factor = k, e / baseline
        baseline = max(baseline, e)
    assert best_factor > 10  # the slip is orders of magnitude above the TF32 noise
    assert out["largest_error_jump"]["key"] == best
    assert out["largest_error_jump"]["factor"] == pytest.approx(best_factor, rel=1e-9)


def test_json_schema_csv_columns_and_html(run, fixtures, tmp_path):
    a, b = fixtures / DUMPS / "tinygpt_cuda_fp16", fixtures / DUMPS / "tinygpt_cuda_fp32"
    html = tmp_path / "r.html"
    p = run("compare", a, b, "--format", "json", "--html", html)
    out = json.loads(p.stdout)
    assert set(out) >= {"entries", "unmatched", "first_divergence", "first_nonfinite"}
    for field in ("key", "module", "status", "cosine", "max_abs_err", "max_rel_err", "rmse"):
        assert field in out["entries"][0]
    assert set(out["first_nonfinite"]) == {"a", "b", "masks_skipped"}
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    c = run("compare", a, b, "--format", "csv")
    header = c.stdout.splitlines()[0].split(",")
    for col in ("NPU Name", "Bench Name", "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
                "One Thousandth Err Ratio", "Five Thousandths Err Ratio", "Accuracy Reached or Not", "Err_message"):
        assert col in header
    assert len(c.stdout.splitlines()) == 1 + len(out["entries"])


def test_text_report_names_first_divergence(run, fixtures):
    p = run("compare", fixtures / DUMPS / "tinygpt_cuda_fp16_overflow",
            fixtures / DUMPS / "tinygpt_cuda_fp32_scaled_reference", "--top", "3")
    assert p.returncode == 1
    assert "first nan/inf in A: " in p.stdout
    assert "worst 3 entries" in p.stdout


def test_fail_on_warn_makes_warnings_fail(run, fixtures):
    # bf16 autocast against fp32: noise, with warnings in resnet18's layer4 (BatchNorm over one value
    # per channel in the trimmed fixture) and no failure.
    a, b = fixtures / DUMPS / "resnet18_cuda_bf16amp", fixtures / DUMPS / "resnet18_cuda_fp32"
    rc, out = compare_json(run, fixtures, "resnet18_cuda_bf16amp", "resnet18_cuda_fp32")
    assert out["summary"]["warn"] > 0 and out["summary"]["fail"] == 0
    assert rc == 0
    assert run("compare", a, b, "--fail-on", "warning").returncode == 1
    assert run("compare", a, b, "--fail-on", "error").returncode == 0


def test_fail_on_fail_and_warn_are_deprecated_spellings(run, fixtures):
    a, b = fixtures / DUMPS / "resnet18_cuda_bf16amp", fixtures / DUMPS / "resnet18_cuda_fp32"
    warned = run("compare", a, b, "--fail-on", "warn")
    assert warned.returncode == 1
    assert warned.stderr.splitlines() == ["banjia: --fail-on warn is spelt warning; the old spelling is deprecated"]
    failed = run("compare", a, b, "--fail-on", "fail")
    assert failed.returncode == 0
    assert failed.stderr.splitlines() == ["banjia: --fail-on fail is spelt error; the old spelling is deprecated"]
    # an alias of one verb is no level of another
    assert run("scan", "examples/cifar_ddp", "--fail-on", "fail").returncode == 2


def test_fail_on_none_never_fails(run, fixtures):
    p = run("compare", fixtures / DUMPS / "tinygpt_cuda_fp16_overflow",
            fixtures / DUMPS / "tinygpt_cuda_fp32_scaled_reference", "--fail-on", "none")
    assert p.returncode == 0
