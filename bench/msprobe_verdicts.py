#!/usr/bin/env python3
"""banjia compare next to msprobe's own compare on the same msprobe dumps.

Makes three tensor-task and three statistics-task dumps with the real mindstudio-probe (PrecisionDebugger, level L1) of one
training step of a small network (Linear, LayerNorm, GELU, Linear, cross-entropy) on CPU: float32
(the reference), bfloat16 autocast (noise only) and bfloat16 autocast with the LayerNorm's epsilon
set to 0.5 (the planted bug). Then runs `msprobe compare` and `banjia compare` on the noise pair and
the bug pair and writes their verdicts side by side to bench/results/compare_msprobe.md.

Needs a Python with torch and mindstudio-probe (.venv has both: requirements-dev.txt); --fixtures DIR
also copies the three tensor dumps there (tests/fixtures/msprobe/pt_l1).

    .venv/bin/python bench/msprobe_verdicts.py [--banjia build/src/banjia] [--fixtures tests/fixtures/msprobe/pt_l1]
"""
import argparse
import csv
import glob
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent

CAPTURE = REPO / "tests" / "e2e" / "msprobe_capture.py"  # the dumps the tests make too


def msprobe_rows(target, golden, work):
    out = work / f"msprobe_{target.name}"
    subprocess.run([str(pathlib.Path(sys.executable).parent / "msprobe"), "compare", "-tp", str(target / "step0"),
                    "-gp", str(golden / "step0"), "-o", str(out)], check=True, capture_output=True)
    with open(glob.glob(str(out / "*.csv"))[0], newline="") as f:
        return {r["NPU Name"]: r["Result"] or "-" for r in csv.DictReader(f)}


def banjia_rows(binary, target, golden):
    p = subprocess.run([binary, "compare", str(target), str(golden), "-f", "json"], capture_output=True, text=True)
    out = json.loads(p.stdout)
    return {e["key"]: e["status"] for e in out["entries"]}, out, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--banjia", default=str(REPO / "build" / "src" / "banjia"))
    ap.add_argument("--fixtures", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "bench" / "results" / "compare_msprobe.md")
    args = ap.parse_args()
    import msprobe  # noqa: F401  (fails early without mindstudio-probe)
    from importlib.metadata import version

    work = pathlib.Path(tempfile.mkdtemp(prefix="msprobe_verdicts."))
    runs = {}
    for task in ("tensor", "statistics"):
        for variant in ("fp32", "bf16", "bug_ln_eps"):
            runs[task, variant] = work / task / variant
            subprocess.run([sys.executable, str(CAPTURE), str(runs[task, variant]), variant, task], check=True,
                           capture_output=True)
            if args.fixtures and task == "tensor":
                dest = args.fixtures / variant
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(runs[task, variant], dest, ignore=shutil.ignore_patterns("stack.json", "construct.json"))
    lines = [f"# banjia compare and msprobe compare on the same msprobe dumps",
             "",
             f"Made by `bench/msprobe_verdicts.py` with mindstudio-probe {version('mindstudio-probe')} and torch "
             f"{version('torch')} on CPU: one training step of Linear, LayerNorm, GELU, Linear, cross-entropy; "
             "tensor task (`.pt` data files) and statistics task, level L1, `step0/proc<pid>/`. A: bfloat16 "
             "autocast; B: float32. "
             "The bug pair has the LayerNorm's epsilon at 0.5 instead of 1e-5 in A. msprobe's `Result` per row "
             "beside banjia's `status`; rows msprobe writes for non-tensor arguments (`unsupported`) have no "
             "banjia row: banjia does not compare them, while msprobe does compare scalars (in the bug pair "
             "its `Functional.layer_norm.0.forward.input.4` row is the epsilon itself).", ""]
    for task, pair in (("tensor", "bf16"), ("tensor", "bug_ln_eps"), ("statistics", "bf16"), ("statistics", "bug_ln_eps")):
        ms = msprobe_rows(runs[task, pair], runs[task, "fp32"], work / task)
        bj, out, rc = banjia_rows(args.banjia, runs[task, pair], runs[task, "fp32"])
        ms_err = sum(v == "error" for v in ms.values())
        bj_bad = sum(v in ("fail", "warn") for v in bj.values())
        suspect = out["suspect"]["key"] if out["suspect"] else "none"
        lines += [f"## {task} task: {pair} against fp32", "",
                  f"- msprobe: {ms_err} of {len(ms)} rows `error`",
                  f"- banjia: {bj_bad} of {len(bj)} entries fail or warn, exit {rc}, suspect `{suspect}`", "",
                  "| row | msprobe | banjia |", "|---|---|---|"]
        for key in ms:
            lines.append(f"| `{key}` | {ms[key]} | {bj.get(key, '-')} |")
        lines.append("")
    args.out.write_text("\n".join(lines))
    print(args.out)


if __name__ == "__main__":
    main()
