"""Every `--format json` output (and migrate's JSON report) validates against its JSON Schema in
docs/formats; every command whose --help offers json has a schema; and the schemas are strict enough
that an undocumented field or a changed type fails validation."""
import copy
import json
import os
import pathlib
import re
import subprocess

import pytest
from jsonschema import Draft202012Validator

REPO = pathlib.Path(__file__).resolve().parents[2]
FORMATS = REPO / "docs" / "formats"
H200 = "gpu-h200"
MSINSIGHT = "ascend/msinsight"

# schema name -> list of (case id, argv builder(fixtures, tmp_path) -> (args, report file or None))
CASES = {
    "scan": [
        ("cifar_ddp", lambda f, t: (["scan", REPO / "examples/cifar_ddp", "-f", "json"], None)),
        ("select", lambda f, t: (["scan", REPO / "examples/cifar_ddp", "--select", "distributed", "-f", "json"], None)),
        ("empty", lambda f, t: (["scan", t, "-f", "json"], None)),
    ],
    "scan-rules": [("catalogue", lambda f, t: (["scan", "--list-rules", "-f", "json"], None))],
    "migrate-report": [
        ("to-dir", lambda f, t: (["migrate", REPO / "examples/cifar_ddp", "-o", t / "out", "--report", t / "r.json"], t / "r.json")),
        ("dry-run-accelerator", lambda f, t: (["migrate", REPO / "examples/cifar_ddp", "--dry-run", "--target", "accelerator",
                                               "--report", t / "r.json"], t / "r.json")),
    ],
    "compare": [
        ("fp16-vs-fp32", lambda f, t: (["compare", f / H200 / "dumps/tinygpt_cuda_fp16", f / H200 / "dumps/tinygpt_cuda_fp32", "--format", "json"], None)),
        ("fp16-overflow", lambda f, t: (["compare", f / H200 / "dumps/tinygpt_cuda_fp16_overflow", f / H200 / "dumps/tinygpt_cuda_fp32", "--format", "json"], None)),
        ("bug-ln-eps", lambda f, t: (["compare", f / H200 / "dumps/tinygpt_cuda_fp32_bug_ln_eps", f / H200 / "dumps/tinygpt_cuda_fp32", "--format", "json"], None)),
        ("resnet-scaled", lambda f, t: (["compare", f / H200 / "dumps/resnet18_cuda_fp32_scaled_reference", f / H200 / "dumps/resnet18_cuda_fp32", "--format", "json"], None)),
        ("resnet-bf16amp", lambda f, t: (["compare", f / H200 / "dumps/resnet18_cuda_bf16amp", f / H200 / "dumps/resnet18_cuda_fp32", "--format", "json"], None)),
        ("msprobe-stats", lambda f, t: (["compare", f / "msprobe/statistics_mix", f / "msprobe/statistics_mix", "--format", "json"], None)),
        ("msprobe-unmatched", lambda f, t: (["compare", f / "msprobe/layer_mapping", f / "msprobe/statistics_mix", "--format", "json"], None)),
        ("msprobe-api-checker", lambda f, t: (["compare", f / "msprobe/api_checker", f / "msprobe/statistics_mix", "--format", "json"], None)),
    ],
    "env-check": [
        ("files-with-findings", lambda f, t: (["env", "check", *sorted((REPO / "tests/e2e/env_cases").iterdir()), "-f", "json"], None)),
        ("example", lambda f, t: (["env", "check", REPO / "examples/cifar_ddp/scripts/launch.sh", "-f", "json"], None)),
    ],
    "env-explain": [
        ("exact", lambda f, t: (["env", "explain", "PYTORCH_NPU_ALLOC_CONF", "-f", "json"], None)),
        ("partial", lambda f, t: (["env", "explain", "alloc", "-f", "json"], None)),
        ("set-option-key", lambda f, t: (["env", "explain", "NPU_FORCE_FP32", "-f", "json"], None)),
        ("cuda-name", lambda f, t: (["env", "explain", "CUDA_VISIBLE_DEVICES", "-f", "json"], None)),
    ],
    "env-doctor": [("this-machine", lambda f, t: (["env", "doctor", "-f", "json"], None))],
    "trace-summary": [
        ("kineto-h200", lambda f, t: (["trace", "summary", f / H200 / "traces/resnet50_fp32.json.gz", "-f", "json"], None)),
        ("kineto-sync", lambda f, t: (["trace", "summary", f / H200 / "traces/antipattern_host_device_sync_slow.json.gz", "-f", "json"], None)),
        ("kineto-cpu-only", lambda f, t: (["trace", "summary", f / "kineto/hta/cpu_only", "-f", "json"], None)),
        ("kineto-amd", lambda f, t: (["trace", "summary", f / "kineto/hta/amd_trace", "-f", "json"], None)),
        ("npu-dir", lambda f, t: (["trace", "summary", f / MSINSIGHT / "text/level1/rank0_ascend_pt", "-f", "json"], None)),
        ("npu-db", lambda f, t: (["trace", "summary", f / MSINSIGHT / "db/level1/rank0_ascend_pt", "-f", "json"], None)),
        ("npu-trace-view", lambda f, t: (["trace", "summary", f / "ascend/mstt-advisor/timeline_advice/trace_view.json", "-f", "json"], None)),
        ("npu-cluster", lambda f, t: (["trace", "summary", f / MSINSIGHT / "text/level1/rank0_ascend_pt",
                                       f / MSINSIGHT / "text/level1/rank1_ascend_pt", "-f", "json"], None)),
        ("not-a-cluster", lambda f, t: (["trace", "summary", f / H200 / "traces/resnet50_fp32.json.gz",
                                         f / H200 / "traces/gpt2_sdpa_bf16.json.gz", "-f", "json"], None)),
    ],
    "trace-cluster": [
        ("npu-ranks", lambda f, t: (["trace", "cluster", *_rank_summaries(t, f / MSINSIGHT / "text/level1/rank0_ascend_pt",
                                                                        f / MSINSIGHT / "text/level1/rank1_ascend_pt"),
                                     "-f", "json"], None)),
    ],
    "trace-compare": [
        ("gpu-vs-npu", lambda f, t: (["trace", "compare", f / H200 / "traces/resnet50_fp32.json.gz",
                                      f / MSINSIGHT / "text/level1/rank0_ascend_pt", "-f", "json"], None)),
        ("before-after", lambda f, t: (["trace", "compare", f / H200 / "traces/antipattern_small_matmuls_slow.json.gz",
                                        f / H200 / "traces/antipattern_small_matmuls_fixed.json.gz", "-f", "json"], None)),
    ],
    "trace-ops": [
        ("kineto", lambda f, t: (["trace", "ops", f / H200 / "traces/resnet50_fp32.json.gz", "-f", "json"], None)),
        ("npu-dir", lambda f, t: (["trace", "ops", f / MSINSIGHT / "text/level1/rank0_ascend_pt", "-f", "json"], None)),
        ("two-traces-old-torch-npu", lambda f, t: (["trace", "ops", f / H200 / "traces/gpt2_sdpa_bf16.json.gz",
                                                    f / H200 / "traces/resnet50_fp32.json.gz", "--torch-npu", "v2.1.0", "-f", "json"], None)),
    ],
    "bench-compare": [
        ("two-csvs", lambda f, t: (["bench", "compare", f / H200 / "bench/resnet50_fp32.csv",
                                    f / H200 / "bench/resnet50_bf16_channels_last.csv", "-f", "json"], None)),
        ("batch-size-same-run", lambda f, t: (["bench", "compare", "--batch-size", "64", f / H200 / "bench/resnet50_fp32.csv",
                                               f / H200 / "bench/resnet50_fp32.csv", "-f", "json"], None)),
        ("one-reading", lambda f, t: (["bench", "compare", _csv(t / "a.csv", [10.0]), _csv(t / "b.csv", [12.0]), "-f", "json"], None)),
    ],
}


def _rank_summaries(tmp, *inputs):
    """`trace summary --format json` of each input, written to tmp: the per-rank step of a cluster."""
    banjia = os.environ.get("BANJIA_BIN", str(REPO / "build" / "src" / "banjia"))
    out = []
    for i, path in enumerate(inputs):
        out.append(tmp / f"rank{i}.json")
        subprocess.run([banjia, "trace", "summary", str(path), "-f", "json", "-o", str(out[-1])], check=True,
                       capture_output=True, timeout=300)
    return out


def _csv(path, times):
    path.write_text("iteration,ms\n" + "".join(f"{i},{x}\n" for i, x in enumerate(times)))
    return path


def schema(name):
    s = json.loads((FORMATS / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(s)
    return Draft202012Validator(s)  # no format_checker: "format" keywords are not asserted


def output(run, fixtures, tmp_path, build):
    args, report = build(fixtures, tmp_path)
    r = run(*args)
    assert r.returncode in (0, 1), r.stderr  # 1: findings / failing entries; 2 would be bad input
    text = report.read_text() if report else r.stdout
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))


def errors(validator, doc):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("name,case,build", [(n, c, b) for n, cases in CASES.items() for c, b in cases],
                         ids=[f"{n}-{c}" for n, cases in CASES.items() for c, _ in cases])
def test_output_matches_schema(run, fixtures, tmp_path, name, case, build):
    assert errors(schema(name), output(run, fixtures, tmp_path, build)) == []


def test_every_schema_is_listed_and_tested():
    files = {p.name.removesuffix(".schema.json") for p in FORMATS.glob("*.schema.json")}
    assert files == set(CASES)
    readme = (FORMATS / "README.md").read_text()
    for n in files:
        assert f"({n}.schema.json)" in readme, n


def _help(run, *cmd):
    r = run(*cmd, "--help")
    assert r.returncode == 0, r.stderr
    return r.stdout


def _subcommands(text):
    block = text.split("Subcommands:", 1)[1] if "Subcommands:" in text else ""
    block = block.split("\n\n", 1)[0]
    return re.findall(r"^  (\w[\w-]*)\s", block, re.M)


def test_every_json_capable_command_has_a_schema(run):
    """Walks `banjia --help` and every verb's and subcommand's --help: a command that offers json as a
    --format choice (or, like migrate's --report, a .json file) must have docs/formats/<verb>[-<sub>]."""
    found = []
    verbs = _subcommands(_help(run))
    assert {"scan", "migrate", "env", "trace", "compare", "bench"} <= set(verbs)
    for verb in verbs:
        text = _help(run, verb)
        cmds = [((verb,), text)] + [((verb, s), _help(run, verb, s)) for s in _subcommands(text)]
        for cmd, t in cmds:
            if re.search(r"--format TEXT:\{[^}]*\bjson\b", t):
                found.append("-".join(cmd))
            if re.search(r"--report FILE .*\.json", t):
                found.append("-".join(cmd) + "-report")
            if "--list-rules" in t and "--format json" in t:
                found.append("-".join(cmd) + "-rules")
    assert {"scan", "compare", "env-check", "env-explain", "env-doctor", "trace-summary", "trace-compare",
            "trace-ops", "bench-compare", "migrate-report", "scan-rules"} <= set(found)
    missing = [c for c in found if not (FORMATS / f"{c}.schema.json").is_file()]
    assert missing == []


def _first(doc, pred, path=()):
    """Path to the first dict in doc (depth first) for which pred(dict) holds."""
    if isinstance(doc, dict):
        if pred(doc):
            return path
        items = doc.items()
    elif isinstance(doc, list):
        items = enumerate(doc)
    else:
        return None
    for k, v in items:
        p = _first(v, pred, path + (k,))
        if p is not None:
            return p
    return None


def _at(doc, path):
    for k in path:
        doc = doc[k]
    return doc


DRIFT = [
    ("compare", "fp16-vs-fp32", lambda d: d["entries"][0].__setitem__("undocumented", 1)),
    ("compare", "fp16-vs-fp32", lambda d: d["entries"][0].__setitem__("cosine", "0.99")),
    ("compare", "fp16-vs-fp32", lambda d: d["entries"][0].__setitem__("status", "ok")),
    ("compare", "fp16-vs-fp32", lambda d: d["entries"][0]["noise"].__setitem__("extra", True)
     if d["entries"][0]["noise"] else d["entries"][0].__setitem__("noise", 1)),
    ("compare", "fp16-vs-fp32", lambda d: d.pop("clear_factor")),
    ("scan", "cifar_ddp", lambda d: d["findings"][0].__setitem__("fix", "auto")),
    ("scan", "cifar_ddp", lambda d: d["findings"][0].__setitem__("line", "52")),
    ("scan", "cifar_ddp", lambda d: d["summary"].__setitem__("new_total", 3)),
    ("trace-summary", "kineto-h200", lambda d: d["summary"]["traces"][0]["steps"][0].__setitem__("wall_us", None)),
    ("trace-summary", "npu-cluster", lambda d: d["summary"]["cluster"]["ranks"][0].pop("rank")),
    ("trace-compare", "gpu-vs-npu", lambda d: d["summary"]["ops"][0].__setitem__("new", "yes")),
    ("trace-ops", "kineto", lambda d: d["summary"]["traces"][0]["ops"][0].__setitem__("status", "supported")),
    ("bench-compare", "two-csvs", lambda d: d["runs"][1]["vs_baseline"][0].__setitem__("verdict", "better")),
    ("bench-compare", "two-csvs", lambda d: d["runs"][0].__setitem__("p99", 1.0)),
    ("env-check", "files-with-findings", lambda d: d["findings"][0].__setitem__("severity", "fatal")),
    ("env-doctor", "this-machine", lambda d: d["summary"]["compatibility"][0].__setitem__("status", "fine")),
    ("env-explain", "exact", lambda d: d["matches"][0].__setitem__("source_locations", "x")),
    ("migrate-report", "to-dir", lambda d: d["changes"][0].__setitem__("line", -1)),
    ("scan-rules", "catalogue", lambda d: d[0].__setitem__("severity", "high")),
]


@pytest.mark.parametrize("name,case,mutate", DRIFT, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(DRIFT)])
def test_schema_catches_drift(run, fixtures, tmp_path, name, case, mutate):
    build = dict(CASES[name])[case]
    doc = output(run, fixtures, tmp_path, build)
    v = schema(name)
    assert errors(v, doc) == []
    drifted = copy.deepcopy(doc)
    mutate(drifted)
    assert drifted != doc
    assert errors(v, drifted) != []


def test_non_finite_numbers_are_null_in_compare_output(run, fixtures, tmp_path):
    # the overflow dump has inf/nan statistics: they are null with a "nonfinite" flag, never bare tokens
    doc = output(run, fixtures, tmp_path, dict(CASES["compare"])["fp16-overflow"])
    path = _first(doc, lambda d: "nonfinite" in d)
    assert path is not None
    stats = _at(doc, path)
    assert all(stats[k] is None for k in stats["nonfinite"])
    assert errors(schema("compare"), doc) == []
