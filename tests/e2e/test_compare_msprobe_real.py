"""Dumps written by the real msprobe (mindstudio-probe from PyPI, PrecisionDebugger level L1) in the
test, on CPU: one training step of Linear, LayerNorm, GELU, Linear, cross-entropy, in float32 (the
reference), bfloat16 autocast (noise only) and bfloat16 with the LayerNorm's epsilon at 0.5 (the
planted bug), each as msprobe's tensor task (.pt data files) and statistics task (dump.json only).

What is checked against something other than banjia: the bug is where it was planted; the error banjia
reports is numpy's over the tensors torch.load reads from msprobe's files; banjia's statistics for a
statistics-task entry are the ones msprobe wrote; and banjia pairs the same tensors msprobe's own
compare pairs."""
import csv
import json
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# mindstudio-probe is pinned in requirements-dev.txt: its absence is a broken environment, not a skip.
import msprobe  # noqa: E402,F401

CAPTURE = pathlib.Path(__file__).with_name("msprobe_capture.py")
VARIANTS = ("fp32", "bf16", "bug_ln_eps")
TASKS = ("tensor", "statistics")
LAYER_NORM_OUT = "Functional.layer_norm.0.forward.output.0"


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    root = tmp_path_factory.mktemp("msprobe_real")

    def capture(job):
        task, variant = job
        out = root / task / variant
        p = subprocess.run([sys.executable, str(CAPTURE), str(out), variant, task], capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        return job, out

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(capture, [(t, v) for t in TASKS for v in VARIANTS]))


def compare(run, a, b):
    p = run("compare", a, b, "--format", "json")
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def proc_dir(run_dir):
    (d,) = run_dir.glob("step0/proc*")  # msprobe's one process folder of a rankless CPU run
    return d


@pytest.mark.parametrize("task", TASKS)
def test_noise_passes_and_the_planted_layernorm_fails(run, dumps, task):
    rc, out = compare(run, dumps[task, "bf16"], dumps[task, "fp32"])
    assert rc == 0 and out["suspect"] is None, [e for e in out["entries"] if e["status"] != "pass"]
    assert out["summary"]["compared"] > 20
    rc, out = compare(run, dumps[task, "bug_ln_eps"], dumps[task, "fp32"])
    assert rc == 1
    assert out["suspect"]["key"] == LAYER_NORM_OUT
    # Upstream of the LayerNorm nothing differs but bf16 rounding: the first linear passes.
    by_key = {e["key"]: e for e in out["entries"]}
    assert by_key["Functional.linear.0.forward.output.0"]["status"] == "pass"
    expected_mode = "tensor" if task == "tensor" else "statistics"
    assert all(e["mode"] == expected_mode for e in out["entries"])


def test_errors_are_numpys_over_what_torch_load_reads(run, dumps):
    a_run, b_run = dumps["tensor", "bug_ln_eps"], dumps["tensor", "fp32"]
    _, out = compare(run, a_run, b_run)
    checked = 0
    for entry in out["entries"]:
        a_file = proc_dir(a_run) / "dump_tensor_data" / f"{entry['key']}.pt"
        b_file = proc_dir(b_run) / "dump_tensor_data" / f"{entry['key']}.pt"
        a = torch.load(a_file, weights_only=True).double().numpy()
        b = torch.load(b_file, weights_only=True).double().numpy()
        if not a.size or not np.isfinite(a).all() or not np.isfinite(b).all():
            continue
        assert entry["max_abs_err"] == pytest.approx(np.abs(a - b).max(), rel=1e-9, abs=1e-300), entry["key"]
        if np.linalg.norm(b) > 0:
            assert entry["rel_l2_err"] == pytest.approx(np.linalg.norm(a - b) / np.linalg.norm(b), rel=1e-9), entry["key"]
        checked += 1
    assert checked > 20


def test_statistics_task_entries_carry_msprobes_own_numbers(run, dumps):
    a_run, b_run = dumps["statistics", "bf16"], dumps["statistics", "fp32"]
    dump = json.loads((proc_dir(a_run) / "dump.json").read_text())
    # msprobe names an entry <call>.input.<i> for the i-th positional argument (group input_args) and
    # <call>.output.<i> (its compare's naming, as in the tensor task's .pt file names).
    group_names = {"input_args": "input", "input": "input", "output": "output"}
    written = {}
    for call, groups in dump["data"].items():
        for group, items in groups.items():
            if group not in group_names:
                continue
            for i, item in enumerate(items):
                if isinstance(item, dict) and item.get("type") == "torch.Tensor":
                    written[f"{call}.{group_names[group]}.{i}"] = item
    _, out = compare(run, a_run, b_run)
    assert len(out["entries"]) > 20
    for entry in out["entries"]:
        item = written[entry["key"]]
        assert entry["dtype_a"] == item["dtype"].replace("torch.", ""), entry["key"]
        for ours, theirs in (("max", "Max"), ("min", "Min"), ("mean", "Mean"), ("norm", "Norm")):
            if item[theirs] is None:  # msprobe leaves statistics it does not take (an int64 target's norm)
                assert entry["stats_a"].get(ours) is None, (entry["key"], ours)
            else:
                assert entry["stats_a"][ours] == pytest.approx(item[theirs], rel=1e-12), (entry["key"], ours)


def msprobe_compared_rows(target, golden, out):
    msprobe_cli = pathlib.Path(sys.executable).parent / "msprobe"
    p = subprocess.run([str(msprobe_cli), "compare", "-tp", str(target / "step0"), "-gp", str(golden / "step0"),
                        "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    (result,) = out.glob("*.csv")
    with open(result, newline="") as f:
        return {r["NPU Name"]: r for r in csv.DictReader(f)}


def test_banjia_pairs_the_tensors_msprobes_compare_pairs(run, dumps, tmp_path):
    a_run, b_run = dumps["tensor", "bug_ln_eps"], dumps["tensor", "fp32"]
    rows = msprobe_compared_rows(a_run, b_run, tmp_path / "msprobe_compare")
    # msprobe also writes rows for non-tensor arguments (the epsilon, the normalized shape), which
    # banjia does not compare: their dtype is a Python type's, not torch's.
    tensor_rows = {k for k, r in rows.items() if r["NPU Dtype"].startswith("torch.")}
    assert len(tensor_rows) < len(rows)  # the LayerNorm's epsilon and shape rows
    _, out = compare(run, a_run, b_run)
    assert {e["key"] for e in out["entries"]} == tensor_rows
