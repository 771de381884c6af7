#!/usr/bin/env python3
"""Two builds of banjia on the same inputs, run in interleaved rounds: the check that a change meant
to keep behaviour (a refactor) keeps speed too. Prints each command's median wall time and CPU time
(user + sys) for A and B and their ratios B / A; a ratio above 1 means B is slower. CPU time varies
less than wall time on a shared machine.

Interleaving (A, B, A, B, ...) spreads the machine's drift over both sides alike; the ratio of
medians, not the absolute times, is what carries over between machines.

    .venv/bin/python bench/ab.py --a OLD/build-release/src/banjia --b build-release/src/banjia [--runs 7]
"""
import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from typing import Dict, List, Sequence, Tuple

REPO = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "gpu-h200"
TRACES = FIXTURES / "traces"
DUMPS = FIXTURES / "dumps"
ENV_LINES = [
    "export TASK_QUEUE_ENABLE=2",
    "export CUDA_VISIBLE_DEVICES=0,1,2,3",
    'export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,backend:cudaMallocAsync"',
    'NPU_MEMCHECK=1 python train.py --lr 0.1 "$CUDA_VISIBLE_DEVICES"',
]


def workloads(tmp: pathlib.Path, trace_mb: float) -> List[Tuple[str, List[str]]]:
    """(label, arguments after the binary); {out} in an argument is a fresh empty folder per run."""
    torch_dir = pathlib.Path(sysconfig.get_paths()["purelib"]) / "torch"
    big_trace = tmp / "big_trace.json"
    subprocess.run([sys.executable, str(REPO / "bench" / "trace_synth.py"), str(TRACES / "resnet50_fp32.json.gz"),
                    str(big_trace), str(trace_mb)], check=True, stdout=subprocess.DEVNULL)
    script = tmp / "launch.sh"
    script.write_text("\n".join(ENV_LINES[i % len(ENV_LINES)] for i in range(20000)) + "\n")
    one_file = REPO / "examples" / "npu_sim" / "amp_training.py"
    return [
        ("scan the torch package", ["scan", str(torch_dir), "--format", "json", "-o", os.devnull]),
        ("migrate examples/", ["migrate", str(REPO / "examples"), "-o", "{out}"]),
        ("scan one file (start-up)", ["scan", str(one_file), "--format", "json", "-o", os.devnull]),
        (f"trace summary, {trace_mb:.0f} MB Kineto", ["trace", "summary", str(big_trace), "--format", "json",
                                                       "-o", os.devnull]),
        ("trace compare resnet50 fp32 vs bf16", ["trace", "compare", str(TRACES / "resnet50_fp32.json.gz"),
                                                 str(TRACES / "resnet50_bf16_channels_last.json.gz"),
                                                 "--format", "json", "-o", os.devnull]),
        ("compare tinygpt bf16 vs fp32 dumps", ["compare", str(DUMPS / "tinygpt_cuda_bf16amp"),
                                                str(DUMPS / "tinygpt_cuda_fp32"), "--format", "json",
                                                "-o", os.devnull]),
        ("env check, 20,000-line script", ["env", "check", str(script), "--format", "json", "-o", os.devnull]),
    ]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(binary: str, args: Sequence[str], tmp: pathlib.Path) -> Tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one run."""
    out = pathlib.Path(tempfile.mkdtemp(dir=tmp))
    shutil.rmtree(out)  # migrate wants OUT absent or empty
    argv = [binary] + [a.replace("{out}", str(out)) for a in args]
    cpu = children_cpu()
    start = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    cpu = children_cpu() - cpu
    shutil.rmtree(out, ignore_errors=True)
    if r.returncode not in (0, 1):  # 1: findings, which these inputs have
        raise SystemExit(f"bench/ab.py: {' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the reference build's banjia binary")
    ap.add_argument("--b", required=True, help="the changed build's banjia binary")
    ap.add_argument("--runs", type=int, default=7, help="interleaved rounds per command")
    ap.add_argument("--trace-mb", type=float, default=200, help="size of the synthesised Kineto trace")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        times: Dict[str, Dict[str, List[Tuple[float, float]]]] = {}
        for label, cmd in workloads(tmp, args.trace_mb):
            run_once(args.a, cmd, tmp)  # warm the page cache for both
            times[label] = {"a": [], "b": []}
            for _ in range(args.runs):
                for side in ("a", "b"):
                    times[label][side].append(run_once(getattr(args, side), cmd, tmp))
    print(f"A: `{args.a}`; B: `{args.b}`; {args.runs} interleaved rounds; {os.cpu_count()} cores; "
          f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    print()
    print("| command | wall A (ms) | wall B (ms) | wall B / A | CPU A (ms) | CPU B (ms) | CPU B / A |")
    print("|---|---|---|---|---|---|---|")
    for label, t in times.items():
        wa, wb = (statistics.median(w for w, _ in t[s]) for s in ("a", "b"))
        ca, cb = (statistics.median(c for _, c in t[s]) for s in ("a", "b"))
        print(f"| {label} | {wa * 1e3:,.1f} | {wb * 1e3:,.1f} | {wb / wa:.3f} | {ca * 1e3:,.1f} | {cb * 1e3:,.1f} "
              f"| {cb / ca:.3f} |")


if __name__ == "__main__":
    main()
