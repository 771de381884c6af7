"""`banjia bench compare`: statistics checked against numpy on the same data, the H200 fixtures,
every output format, and bad input."""
import csv
import io
import json
import pathlib
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

H200 = "gpu-h200/bench"


def load_ms(path):
    with open(path) as f:
        return np.array([float(r["ms"]) for r in csv.DictReader(f)])


def write_csv(path, values, column="ms"):
    # repr of a Python float is its shortest exact decimal (numpy scalars' repr is "np.float64(...)")
    path.write_text(f"iteration,{column}\n" + "".join(f"{i},{float(v)!r}\n" for i, v in enumerate(values)))
    return path


def compare_json(run, *args):
    r = run("bench", "compare", "-f", "json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_h200_resnet50_bf16_channels_last_is_faster(run, fixtures):
    fp32, bf16 = fixtures / H200 / "resnet50_fp32.csv", fixtures / H200 / "resnet50_bf16_channels_last.csv"
    doc = compare_json(run, "--batch-size", "64", fp32, bf16)
    base, other = doc["runs"]
    for run_doc, path in ((base, fp32), (other, bf16)):
        ms = load_ms(path)
        assert run_doc["iterations"] == len(ms)
        assert run_doc["time_ms"]["median"] == pytest.approx(np.median(ms), rel=1e-12)
        assert run_doc["time_ms"]["p95"] == pytest.approx(np.percentile(ms, 95), rel=1e-12)
        assert run_doc["time_ms"]["cv"] == pytest.approx(ms.std(ddof=1) / ms.mean(), rel=1e-9)
        assert run_doc["throughput_per_s"] == pytest.approx(64 / (np.median(ms) / 1e3), rel=1e-12)
    step = next(m for m in other["vs_baseline"] if m["metric"] == "step_time")
    assert step["verdict"] == "faster"
    assert step["ci_high"] < 1.0 and step["ci_low"] <= step["ratio"] <= step["ci_high"]
    assert step["ratio"] == pytest.approx(np.median(load_ms(bf16)) / np.median(load_ms(fp32)), rel=1e-12)
    # The H200 run's own record (timings.json) agrees with the medians behind the CSVs.
    timings = json.loads((fixtures / "gpu-h200" / "timings.json").read_text())
    assert base["throughput_per_s"] == pytest.approx(timings["resnet50_fp32"]["imgs_per_s"], rel=1e-4)
    assert other["throughput_per_s"] == pytest.approx(timings["resnet50_bf16_channels_last"]["imgs_per_s"], rel=1e-4)
    assert base["vs_baseline"] is None


@pytest.mark.parametrize("n", [1, 2, 7, 10, 31, 200])
def test_quantiles_match_numpy(run, tmp_path, n):
    rng = np.random.default_rng(n)
    values = rng.lognormal(mean=3.0, sigma=0.3, size=n)
    values[0] *= 4  # an outlier
    f = write_csv(tmp_path / "r.csv", values)
    t = compare_json(run, f)["runs"][0]["time_ms"]
    assert t["median"] == pytest.approx(np.median(values), rel=1e-12)
    assert t["p95"] == pytest.approx(np.percentile(values, 95), rel=1e-12)
    q1, q3 = np.percentile(values, [25, 75])
    assert t["q1"] == pytest.approx(q1, rel=1e-12) and t["q3"] == pytest.approx(q3, rel=1e-12)
    outliers = int(((values < q1 - 1.5 * (q3 - q1)) | (values > q3 + 1.5 * (q3 - q1))).sum())
    assert t["outliers_low"] + t["outliers_high"] == outliers
    if n > 1:
        assert t["cv"] == pytest.approx(values.std(ddof=1) / values.mean(), rel=1e-9)


def test_bootstrap_is_reproducible_and_seed_dependent(run, fixtures):
    files = [fixtures / H200 / "gpt2_eager_bf16.csv", fixtures / H200 / "gpt2_sdpa_bf16.csv"]
    a = run("bench", "compare", *files)
    b = run("bench", "compare", *files)
    assert a.returncode == 0 and a.stdout == b.stdout
    c = compare_json(run, "--seed", "1", *files)["runs"][1]["vs_baseline"][0]
    d = compare_json(run, *files)["runs"][1]["vs_baseline"][0]
    assert c["ratio"] == d["ratio"] and (c["ci_low"], c["ci_high"]) != (d["ci_low"], d["ci_high"])


def test_text_table_has_one_column_per_run(run, fixtures):
    files = [fixtures / H200 / n for n in ("resnet50_fp32.csv", "resnet50_bf16_channels_last.csv")]
    r = run("bench", "compare", "--labels", "gpu-fp32,gpu-bf16", "--batch-size", "64", *files)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["metric", "gpu-fp32", "gpu-bf16"]
    row = next(l for l in lines if l.startswith("step time vs baseline"))
    assert row.split()[-1] == "faster" and "baseline" in row
    median_row = next(l for l in lines if l.startswith("median step (ms)"))
    assert median_row.split()[-2:] == ["32.66", "22.88"]


def test_markdown_csv_and_html(run, fixtures, tmp_path):
    files = [fixtures / H200 / "gpt2_eager_bf16.csv", fixtures / H200 / "gpt2_sdpa_bf16.csv"]
    md = run("bench", "compare", "-f", "markdown", *files).stdout.splitlines()
    assert md[0] == "| metric | gpt2_eager_bf16 | gpt2_sdpa_bf16 |" and md[1].startswith("|---|")
    r = run("bench", "compare", "-f", "csv", "--html", tmp_path / "r.html", "-o", tmp_path / "r.csv", *files)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text())))
    median = {row["run"]: row for row in rows if row["metric"] == "median_step"}
    assert float(median["gpt2_sdpa_bf16"]["value"]) == pytest.approx(np.median(load_ms(files[1])))
    assert median["gpt2_sdpa_bf16"]["verdict"] == "faster"
    assert float(median["gpt2_sdpa_bf16"]["ci_high"]) < 1
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 2 and "<circle" in page
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # self-contained
    for chunk in page.split("<svg")[1:]:  # each chart is well-formed XML
        svg = ET.fromstring("<svg" + chunk.split("</svg>")[0] + "</svg>")
        assert svg.tag.endswith("svg")
    dots = page.split("<svg")[1].count("<circle")
    assert dots == len(load_ms(files[0])) + len(load_ms(files[1]))  # every iteration is drawn


def test_fail_on_error_fails_on_a_slower_run(run, fixtures):
    fp32, bf16 = fixtures / H200 / "resnet50_fp32.csv", fixtures / H200 / "resnet50_bf16_channels_last.csv"
    assert run("bench", "compare", "--fail-on", "error", fp32, bf16).returncode == 0
    assert run("bench", "compare", "--fail-on", "error", bf16, fp32).returncode == 1
    assert run("bench", "compare", "--fail-on", "none", bf16, fp32).returncode == 0
    assert run("bench", "compare", bf16, fp32).returncode == 0  # default: none


def test_fail_on_slower_is_a_deprecated_spelling_of_error(run, fixtures):
    fp32, bf16 = fixtures / H200 / "resnet50_fp32.csv", fixtures / H200 / "resnet50_bf16_channels_last.csv"
    r = run("bench", "compare", "--fail-on", "slower", bf16, fp32)
    assert r.returncode == 1
    assert r.stderr.splitlines() == ["banjia: --fail-on slower is spelt error; the old spelling is deprecated"]
    assert run("bench", "compare", "--fail-on", "slower", fp32, bf16).returncode == 0


def test_short_and_noisy_runs_are_flagged(run, tmp_path):
    base = write_csv(tmp_path / "base.csv", [10.0 + 0.01 * i for i in range(20)])
    noisy = write_csv(tmp_path / "noisy.csv", [5.0, 15.0, 6.0, 14.0, 5.5])
    doc = compare_json(run, base, noisy)
    warnings = doc["runs"][1]["warnings"]
    assert any("too short" in w for w in warnings) and any("too noisy" in w for w in warnings)
    assert doc["runs"][0]["warnings"] == []
    assert run("bench", "compare", "--fail-on", "warning", base, noisy).returncode == 1


def test_invalid_cells_are_skipped_and_reported(run, tmp_path):
    f = tmp_path / "mixed.csv"
    f.write_text("iteration,ms\n0,10\n1,abc\n2,-5\n3,11\n4,12\n")
    doc = compare_json(run, f)
    assert doc["runs"][0]["skipped"] == 2 and doc["runs"][0]["iterations"] == 3
    assert any("2 invalid value(s) skipped" in w for w in doc["runs"][0]["warnings"])


def test_units_are_converted(run, tmp_path):
    ms = write_csv(tmp_path / "ms.csv", [10.0, 11.0, 12.0])
    us = write_csv(tmp_path / "us.csv", [10000.0, 11000.0, 12000.0], column="us")
    doc = compare_json(run, ms, us)
    assert doc["runs"][1]["time_ms"]["median"] == pytest.approx(11.0)
    assert doc["runs"][1]["vs_baseline"][0]["ratio"] == pytest.approx(1.0)


@pytest.mark.parametrize("content,problem", [
    ("", "empty file"),
    ("iteration,ms\n", "no data rows"),
    ("iteration,ms\n0,x\n1,-2\n", "no valid times"),
    ("iteration,minutes\n0,1\n", "no time column"),
    ('{"format": "banjia.bench", "version": 1, "timing": {"unit": "fortnights", "times": [1]}}', "unknown time unit"),
    ('{"format": "banjia.bench", "version": 9, "timing": {}}', "version 9 is not supported"),
    ('{"hello": 1}', "not a banjia bench recording"),
    ('{"format": ', "invalid JSON"),
])
def test_bad_input_is_one_line_exit_2(run, tmp_path, content, problem):
    good = write_csv(tmp_path / "good.csv", [1.0, 2.0])
    bad = tmp_path / "bad.input"
    bad.write_text(content)
    out = tmp_path / "out.txt"
    r = run("bench", "compare", "-o", out, good, bad)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"banjia: {bad}: ") and problem in lines[0], r.stderr
    assert not out.exists()


def test_missing_file_and_label_count_are_usage_errors(run, tmp_path):
    good = write_csv(tmp_path / "good.csv", [1.0, 2.0])
    assert run("bench", "compare", good, tmp_path / "nope.csv").returncode == 2
    r = run("bench", "compare", "--labels", "a,b,c", good, good)
    assert r.returncode == 2 and "--labels has 3 names for 2 files" in r.stderr


def test_help_examples_run(run, fixtures):
    r = run("bench", "compare", "--help")
    assert r.returncode == 0 and "Examples:" in r.stdout
    assert "bench" in run("--help").stdout
    # The example on the repository's own runs works as printed, from the repository root.
    examples = r.stdout.split("Examples:", 1)[1].replace("\\\n", " ").splitlines()
    on_fixtures = [line.split() for line in examples if "tests/fixtures/" in line]
    assert len(on_fixtures) == 1, examples
    words = on_fixtures[0]
    assert words[:3] == ["banjia", "bench", "compare"]
    ex = run(*words[1:], cwd=fixtures.parent.parent)
    assert ex.returncode == 0, ex.stderr
    assert ex.stdout.splitlines()[0].split() == ["metric", "fp32", "bf16"]


def test_bootstrap_interval_agrees_with_an_independent_numpy_bootstrap(run, fixtures):
    """Same percentile bootstrap done with numpy's generator: the endpoints agree within Monte Carlo
    error (both use 20,000 resamples; different random streams)."""
    fp32, bf16 = fixtures / H200 / "resnet50_fp32.csv", fixtures / H200 / "resnet50_bf16_channels_last.csv"
    step = compare_json(run, "--resamples", "20000", fp32, bf16)["runs"][1]["vs_baseline"][0]
    base, other = load_ms(fp32), load_ms(bf16)
    rng = np.random.default_rng(0)
    b = np.median(base[rng.integers(0, len(base), (20000, len(base)))], axis=1)
    o = np.median(other[rng.integers(0, len(other), (20000, len(other)))], axis=1)
    low, high = np.percentile(o / b, [2.5, 97.5])
    assert step["ci_low"] == pytest.approx(low, rel=0.004)
    assert step["ci_high"] == pytest.approx(high, rel=0.004)


def recording(path, label, times, batch, peak, power):
    doc = {"format": "banjia.bench", "version": 1, "label": label,
           "device": {"type": "npu", "index": 0, "name": "Ascend910B3"},
           "timing": {"method": "npu-event", "unit": "ms", "warmup": 5, "times": list(times)},
           "batch_size": batch, "sample_unit": "images",
           "memory": {"peak_allocated_bytes": peak, "peak_reserved_bytes": peak, "peak_rss_bytes": None},
           "power": {"tool": "npu-smi", "samples_w": list(power), "median_w": float(np.median(power))}}
    path.write_text(json.dumps(doc))
    return path


def test_article_table_from_recordings(run, tmp_path):
    """Three recordings like the table of the tuning article's "6. Monitoring" (docs/sources/tuning-article.md):
    memory, power and energy rows and their ratios."""
    rng = np.random.default_rng(3)
    runs = [("gpu", 45.0, 6.2e9, 210.0), ("npu-initial", 68.0, 5.8e9, 180.0), ("npu-tuned", 39.0, 4.5e9, 160.0)]
    files, data = [], {}
    for label, ms, mem, watts in runs:
        times = ms * np.exp(0.02 * rng.standard_normal(40))
        power = watts + rng.standard_normal(15)
        files.append(recording(tmp_path / f"{label}.json", label, times, 16, mem, power))
        data[label] = (times, power, mem)
    doc = compare_json(run, *files)
    for run_doc in doc["runs"]:
        times, power, mem = data[run_doc["label"]]
        assert run_doc["power_median_w"] == pytest.approx(np.median(power))
        assert run_doc["energy_per_sample_j"] == pytest.approx(np.median(power) * np.median(times) / 1e3 / 16)
        assert run_doc["peak_memory_bytes"] == mem and run_doc["memory_kind"] == "allocated"
    by_metric = {m["metric"]: m for m in doc["runs"][2]["vs_baseline"]}
    assert by_metric["step_time"]["verdict"] == "faster" and by_metric["power"]["verdict"] == "lower"
    assert by_metric["peak_memory"]["ratio"] == pytest.approx(4.5 / 6.2) and by_metric["peak_memory"]["ci_low"] is None
    gpu_t, gpu_p, _ = data["gpu"]
    tuned_t, tuned_p, _ = data["npu-tuned"]
    energy_ratio = (np.median(tuned_p) * np.median(tuned_t)) / (np.median(gpu_p) * np.median(gpu_t))
    assert by_metric["energy_per_sample"]["ratio"] == pytest.approx(energy_ratio)
    assert by_metric["energy_per_sample"]["verdict"] == "lower"
    assert {m["metric"]: m["verdict"] for m in doc["runs"][1]["vs_baseline"]}["step_time"] == "slower"
    text = run("bench", "compare", *files).stdout
    for row in ("peak memory (GiB)", "power median (W)", "energy per sample (J)", "energy vs baseline"):
        assert row in text
    assert text.splitlines()[0].split() == ["metric", "gpu", "npu-initial", "npu-tuned"]


def memory_recording(path, label, peak, times):
    return recording(path, label, times, 16, peak, [150.0, 151.0, 152.0])


def test_memory_in_one_reading_claims_no_direction(run, tmp_path):
    """Peak memory is one number per run: a 1.8 % difference has no interval, so no 'lower'."""
    times = [10.0 + 0.01 * i for i in range(20)]
    base = memory_recording(tmp_path / "a.json", "a", 1.0e9, times)
    other = memory_recording(tmp_path / "b.json", "b", 0.982e9, times)
    doc = compare_json(run, base, other)
    mem = {m["metric"]: m for m in doc["runs"][1]["vs_baseline"]}["peak_memory"]
    assert mem["ratio"] == pytest.approx(0.982)
    assert mem["verdict"] == "inconclusive" and mem["no_ci_reason"] == "1 reading"
    assert mem["ci_low"] is None and mem["ci_high"] is None and mem["confidence"] is None
    row = next(l for l in run("bench", "compare", base, other).stdout.splitlines() if l.startswith("memory vs baseline"))
    assert row.endswith("0.982x no CI (1 reading) inconclusive")
    assert "lower" not in row and "higher" not in row
    rows = list(csv.DictReader(io.StringIO(run("bench", "compare", "-f", "csv", base, other).stdout)))
    assert {r["verdict"] for r in rows if r["metric"] == "peak_memory" and r["run"] == "b"} == {"inconclusive"}


@pytest.mark.parametrize("base_times,other_times,reason", [
    ([10.0], [12.0], "1 reading"),
    ([10.0] * 20, [12.0] * 20, "no spread"),
])
def test_step_time_without_interval_is_inconclusive(run, tmp_path, base_times, other_times, reason):
    base = write_csv(tmp_path / "a.csv", base_times)
    other = write_csv(tmp_path / "b.csv", other_times)
    step = compare_json(run, base, other)["runs"][1]["vs_baseline"][0]
    assert step["ratio"] == pytest.approx(1.2)
    assert (step["verdict"], step["no_ci_reason"], step["ci_low"]) == ("inconclusive", reason, None)
    assert run("bench", "compare", "--fail-on", "error", base, other).returncode == 0
    assert f"1.200x no CI ({reason}) inconclusive" in run("bench", "compare", base, other).stdout


def test_too_noisy_run_is_not_labelled_faster(run, tmp_path):
    """The interval alone excludes 1 (an independent numpy bootstrap says so too), but the run's CV is
    above 10 %: the verdict must agree with the 'too noisy to conclude' warning."""
    rng = np.random.default_rng(7)
    base_ms = 10.0 + 0.05 * rng.standard_normal(40)
    other_ms = 6.0 * (1 + 0.15 * rng.standard_normal(40))
    assert other_ms.std(ddof=1) / other_ms.mean() > 0.10
    b = np.median(base_ms[rng.integers(0, 40, (4000, 40))], axis=1)
    o = np.median(other_ms[rng.integers(0, 40, (4000, 40))], axis=1)
    assert np.percentile(o / b, 97.5) < 1.0  # the interval excludes 1: the CI alone would say "faster"
    base, other = write_csv(tmp_path / "a.csv", base_ms), write_csv(tmp_path / "b.csv", other_ms)
    doc = compare_json(run, "--batch-size", "8", base, other)
    assert any("too noisy" in w for w in doc["runs"][1]["warnings"])
    by_metric = {m["metric"]: m for m in doc["runs"][1]["vs_baseline"]}
    for metric in ("step_time", "throughput"):
        assert by_metric[metric]["verdict"] == "inconclusive"
        assert by_metric[metric]["inconclusive_reason"] == "too noisy"
    text = run("bench", "compare", base, other).stdout
    row = next(l for l in text.splitlines() if l.startswith("step time vs baseline"))
    assert row.endswith("inconclusive (too noisy)") and "faster" not in row


def test_value_whose_statistics_overflow_is_refused(run, tmp_path):
    f = tmp_path / "big.csv"
    f.write_text("iteration,ms\n0,5\n1,1e308\n2,6\n")
    out = tmp_path / "r.html"
    r = run("bench", "compare", "--html", out, f, f)
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.strip().splitlines() == [
        f"banjia: {f}: time 1e308 ms at data row 2 overflows the statistics (accepted: 1e-40 to 1e+40 ms)"]


def test_number_beyond_double_is_out_of_range(run, tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("iteration,ms\n0,1e400\n1,5\n2,6\n")
    warnings = compare_json(run, f)["runs"][0]["warnings"]
    assert "1 invalid value(s) skipped (first: data row 1: time 1e400 out of range (beyond a double))" in warnings


NON_FINITE = re.compile(r"(?<![a-z])-?(nan|inf|infinity)(?![a-z])", re.IGNORECASE)


@pytest.mark.parametrize("base_times,other_times", [
    ([10.0], [12.0]),                      # one reading each
    ([10.0] * 5, [10.0] * 5),              # no spread at all
    ([1e39, 2e39, 3e39], [1e-39, 2e-39]),  # the extremes of the accepted range
])
def test_no_output_format_prints_non_finite_numbers(run, tmp_path, base_times, other_times):
    base, other = write_csv(tmp_path / "a.csv", base_times), write_csv(tmp_path / "b.csv", other_times)
    html = tmp_path / "r.html"
    outputs = []
    for fmt in ("text", "json", "csv", "markdown"):
        r = run("bench", "compare", "-f", fmt, "--html", html, "--batch-size", "4", base, other)
        assert r.returncode == 0, r.stderr
        outputs += [r.stdout, html.read_text()]
    for out in outputs:
        assert not NON_FINITE.search(out), NON_FINITE.search(out)
