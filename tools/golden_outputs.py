#!/usr/bin/env python3
"""Runs every verb of one banjia binary over the repository's examples and test fixtures and writes
each command's exit code, standard output and standard error to OUT/<n>-<label>.txt: the check that
a change meant to keep behaviour (a refactor, a move of files) keeps every output byte for byte.

    tools/golden_outputs.py --banjia OLD/build/src/banjia OUT_A
    tools/golden_outputs.py --banjia build/src/banjia OUT_B
    diff -r OUT_A OUT_B

Commands run from the repository root with relative paths, one thread where a verb takes -j, so
their outputs do not depend on where the tree or the binary lies or on scheduling. `migrate` runs with
--dry-run --diff: its edits are in the diff it prints, and nothing is written.
"""
import argparse
import json
import pathlib
import subprocess
import sys
from typing import List, Tuple

REPO = pathlib.Path(__file__).resolve().parent.parent
FIX = "tests/fixtures"


def commands(banjia: str) -> List[Tuple[str, List[str]]]:
    """(label, arguments after the binary)."""
    out: List[Tuple[str, List[str]]] = []
    sources = ["examples/cifar_ddp", "examples/llm_kernels", "examples/llm_modern", "examples/npu_sim",
               f"{FIX}/llm-stacks", f"{FIX}/triton-kernels"]
    for src in sources:
        name = src.replace("/", "_")
        out.append((f"scan-{name}", ["scan", src, "-j", "1"]))
        out.append((f"scan-json-{name}", ["scan", src, "-j", "1", "--format", "json"]))
        for target in ("npu", "accelerator"):
            out.append((f"migrate-{target}-{name}", ["migrate", src, "--dry-run", "--diff", "--target", target, "-j", "1"]))
    out.append(("migrate-distributed", ["migrate", "examples/npu_sim", "--dry-run", "--diff", "--distributed", "-j", "1"]))
    out.append(("scan-list-rules", ["scan", "--list-rules"]))
    rules = subprocess.run([banjia, "scan", "--list-rules", "--format", "json"], capture_output=True, text=True)
    if rules.returncode == 0 and rules.stdout.lstrip().startswith("["):
        for r in json.loads(rules.stdout):
            out.append((f"scan-explain-{r['id']}", ["scan", "--explain", r["id"]]))
    traces = sorted(str(p.relative_to(REPO)) for p in (REPO / FIX / "gpu-h200" / "traces").glob("*.json.gz"))
    traces += sorted(str(p.relative_to(REPO)) for p in (REPO / FIX / "kineto" / "hta").rglob("*.json.gz"))[:6]
    traces += [f"{FIX}/ascend/msinsight/text/level1", f"{FIX}/ascend/msinsight/db/level1",
               f"{FIX}/ascend/mstt-advisor/timeline_advice/trace_view.json"]
    for t in traces:
        name = t.replace("/", "_")
        for fmt in ("text", "json"):
            out.append((f"trace-summary-{fmt}-{name}", ["trace", "summary", t, "--format", fmt]))
        out.append((f"trace-ops-{name}", ["trace", "ops", t, "--format", "json"]))
    gpu = f"{FIX}/gpu-h200/traces"
    out.append(("trace-compare", ["trace", "compare", f"{gpu}/antipattern_small_matmuls_slow.json.gz",
                                  f"{gpu}/antipattern_small_matmuls_fixed.json.gz"]))
    out.append(("trace-summary-two-runs", ["trace", "summary", f"{gpu}/resnet50_fp32.json.gz",
                                  f"{gpu}/resnet50_bf16_channels_last.json.gz", "--format", "json"]))
    dumps = f"{FIX}/gpu-h200/dumps"
    for a, b in (("tinygpt_cuda_bf16amp", "tinygpt_cuda_fp32"), ("tinygpt_cuda_fp16_overflow", "tinygpt_cuda_fp32"),
                 ("resnet18_cuda_bf16amp", "resnet18_cuda_fp32")):
        for fmt in ("text", "json", "csv"):
            out.append((f"compare-{fmt}-{a}", ["compare", f"{dumps}/{a}", f"{dumps}/{b}", "--format", fmt]))
    for m in sorted((REPO / FIX / "msprobe").iterdir()):
        out.append((f"compare-msprobe-{m.name}", ["compare", str(m.relative_to(REPO)), str(m.relative_to(REPO))]))
    for f in sorted((REPO / "tests" / "e2e" / "env_cases").iterdir()):
        out.append((f"env-check-{f.name}", ["env", "check", str(f.relative_to(REPO))]))
        out.append((f"env-translate-{f.name}", ["env", "translate", str(f.relative_to(REPO))]))
    for var in ("PYTORCH_NPU_ALLOC_CONF", "TASK_QUEUE_ENABLE", "HCCL_CONNECT_TIMEOUT", "CUDA_VISIBLE_DEVICES"):
        out.append((f"env-explain-{var}", ["env", "explain", var]))
    for scenario in ("training", "distributed", "inference"):
        out.append((f"env-template-{scenario}", ["env", "template", "--scenario", scenario]))
    bench = f"{FIX}/gpu-h200/bench"
    out.append(("bench-compare", ["bench", "compare", f"{bench}/gpt2_eager_bf16.csv", f"{bench}/gpt2_sdpa_bf16.csv"]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--banjia", required=True)
    ap.add_argument("out")
    args = ap.parse_args()
    banjia = str(pathlib.Path(args.banjia).resolve())
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = commands(banjia)
    for n, (label, argv) in enumerate(runs):
        r = subprocess.run([banjia, *argv], cwd=REPO, capture_output=True, text=True, errors="replace",
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"}, timeout=300)
        text = f"$ banjia {' '.join(argv)}\nexit {r.returncode}\n--- stdout\n{r.stdout}--- stderr\n{r.stderr}"
        (out / f"{n:03d}-{label}.txt").write_text(text)
    print(f"{len(runs)} commands, outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
