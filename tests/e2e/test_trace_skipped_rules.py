"""`banjia trace summary` says which advisor rules it did not run on a trace, and why.

The expected list is computed here from two independent inputs: what each rule needs (its `needs` in
data/trace/advisors.toml) and what the trace file holds (device events? kernels? input shapes?),
read with plain Python over the JSON. The reason texts are the ones docs/trace.md lists."""
import gzip
import json
import pathlib
import tomllib

import pytest

import trace_oracle as oracle

REPO = pathlib.Path(__file__).resolve().parents[2]
H200 = "gpu-h200/traces"
CPU_ONLY = "CPU-only trace: device rules not applicable"
NO_SHAPES = "no input shapes recorded (profile with record_shapes=True)"
NOT_ASCEND = "not an Ascend profile"
NO_KERNELS = "no device kernels recorded"
NO_COMM = "no communication recorded"
NPU_SHAPES_NOT_READ = "input shapes of torch_npu profiles are not read (only Kineto's \"Input Dims\" lists)"


def rule_needs():
    with open(REPO / "data/trace/advisors.toml", "rb") as f:
        return [(r["id"], r["needs"]) for r in tomllib.load(f)["rule"]]


def kineto_facts(events):
    """What a Kineto trace holds, by the profiler's own categories."""
    device = [e for e in events if e.get("ph") == "X" and e.get("cat") in oracle.DEVICE_CATS]
    return {
        "device": bool(device),
        "device_kernels": any(e["cat"] in ("kernel", "Kernel") for e in device),
        "input_shapes": any(e.get("ph") == "X" and e.get("cat") in ("cpu_op", "Operator")
                            and "Input Dims" in e.get("args", {}) for e in events),
        "ascend": False,
        "communication": any(e["cat"] in ("kernel", "Kernel") and "nccl" in e["name"].lower() for e in device),
    }


def expected_skips(facts):
    reasons = {"device_kernels": NO_KERNELS, "input_shapes": NO_SHAPES, "ascend": NOT_ASCEND,
               "communication": NO_COMM}
    out = []
    for rule, needs in rule_needs():
        unmet = [n for n in needs if not facts[n]]
        if not unmet:
            continue
        device_side = unmet[0] in ("device", "device_kernels", "communication")
        out.append({"rule": rule, "reason": CPU_ONLY if device_side and not facts["device"] else reasons[unmet[0]]})
    return out


def summary(run, *paths):
    r = run("trace", "summary", *paths, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def cpu_trace(tmp_path_factory):
    torch = pytest.importorskip("torch")
    import banjia

    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)
    return banjia.profile(lambda: model(x).sum().backward(), steps=2, out=tmp_path_factory.mktemp("cpu"),
                          device="cpu")


def test_every_rule_declares_known_needs():
    known = {"device", "device_kernels", "input_shapes", "ascend", "communication"}
    needs = rule_needs()
    assert len(needs) >= 8
    for rule, n in needs:
        assert set(n) <= known, rule


def test_cpu_trace_reports_device_rules_as_skipped(run, cpu_trace, tmp_path):
    facts = kineto_facts(oracle.load(cpu_trace))
    assert not facts["device"] and facts["input_shapes"]  # banjia.profile on cpu records shapes
    expect = expected_skips(facts)
    assert {s["reason"] for s in expect} == {CPU_ONLY, NOT_ASCEND}
    t = summary(run, cpu_trace)["summary"]["traces"][0]
    assert t["skipped_rules"] == expect
    assert "conv-in-loop" not in [s["rule"] for s in t["skipped_rules"]]  # host ops with shapes: it ran

    text = run("trace", "summary", cpu_trace).stdout
    for s in expect:
        assert text.count(f"skipped: {s['rule']} \u2014 {s['reason']}") == 1, s
    page = tmp_path / "r.html"
    assert run("trace", "summary", cpu_trace, "--html", page).returncode == 0
    html = page.read_text()
    for s in expect:
        assert f"<td>{s['rule']}</td><td>{s['reason']}</td>" in html


def test_each_trace_lists_its_own_skipped_rules_once(run, cpu_trace, fixtures):
    gpu = fixtures / H200 / "antipattern_conv_in_loop_slow.json.gz"
    d = summary(run, cpu_trace, gpu)
    by_file = {t["file"]: t["skipped_rules"] for t in d["summary"]["traces"]}
    assert by_file[str(cpu_trace)] == expected_skips(kineto_facts(oracle.load(cpu_trace)))
    assert by_file[str(gpu)] == expected_skips(kineto_facts(oracle.load(gpu)))
    text = run("trace", "summary", cpu_trace, gpu).stdout
    assert text.count(f"skipped: host-bound \u2014 {CPU_ONLY}") == 1  # the CPU trace only


def test_gpu_trace_with_shapes_runs_conv_in_loop(run, fixtures):
    path = fixtures / H200 / "antipattern_conv_in_loop_slow.json.gz"
    facts = kineto_facts(oracle.load(path))
    assert facts["device_kernels"] and facts["input_shapes"]
    d = summary(run, path)
    skipped = d["summary"]["traces"][0]["skipped_rules"]
    assert skipped == expected_skips(facts)
    assert "conv-in-loop" not in [s["rule"] for s in skipped]
    assert "conv-in-loop" in [f["rule"] for f in d["findings"]]


def test_trace_without_shapes_reports_the_shape_reason(run, fixtures, tmp_path):
    src = fixtures / H200 / "antipattern_conv_in_loop_slow.json.gz"
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    stripped = 0
    for e in events:
        if "Input Dims" in e.get("args", {}):
            del e["args"]["Input Dims"]
            stripped += 1
    assert stripped
    path = tmp_path / "no_shapes.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)
    facts = kineto_facts(events)
    assert not facts["input_shapes"] and facts["device_kernels"]
    d = summary(run, path)
    skipped = d["summary"]["traces"][0]["skipped_rules"]
    assert skipped == expected_skips(facts)
    shape_rules = {s["rule"] for s in skipped if s["reason"] == NO_SHAPES}
    assert shape_rules == {r for r, n in rule_needs() if "input_shapes" in n}
    assert {"conv-in-loop", "small-gemm-batching"} <= shape_rules
    assert "conv-in-loop" not in [f["rule"] for f in d["findings"]]


def test_ascend_profile_runs_the_npu_rules(run, fixtures):
    d = fixtures / "ascend/msinsight/text/level1/rank0_ascend_pt"
    with open(d / "ASCEND_PROFILER_OUTPUT/trace_view.json") as f:
        events = json.load(f)
    # torch_npu writes "Input Dims" as text ("32,3,224,224;\r\n64,3,11,11;..."), which banjia does not
    # read: the shape rules say so instead of claiming that no shapes were recorded.
    dims = [e["args"]["Input Dims"] for e in events if "Input Dims" in e.get("args", {})]
    assert dims and all(isinstance(x, str) for x in dims)
    t = summary(run, d)["summary"]["traces"][0]
    assert t["format"] == "torch_npu"
    shape_rules = [r for r, n in rule_needs() if "input_shapes" in n]
    assert t["skipped_rules"] == [{"rule": r, "reason": NPU_SHAPES_NOT_READ} for r in shape_rules]
    ascend_rules = {r for r, n in rule_needs() if "ascend" in n}
    assert ascend_rules and not ascend_rules & {s["rule"] for s in t["skipped_rules"]}
