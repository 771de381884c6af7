#!/usr/bin/env python3
"""Speed of `banjia bench compare` next to a stand-in: a numpy script doing the same statistics
(median, p95, CV, Tukey outliers, 2000-resample percentile bootstrap of the median ratio). No tool
compares recorded step-time runs this way, so there is no real peer to run.

Both are timed as a user runs them: a fresh process per comparison (for numpy that includes starting
Python and importing numpy). The in-process numpy time is shown too. Medians over --runs repetitions.

    .venv/bin/python bench/bench_compare.py [--runs 7] [--binary build/src/banjia]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "gpu-h200" / "bench"

# The stand-in: what one would write with numpy for the same table (vectorised bootstrap).
NUMPY_SCRIPT = r'''
import sys, time, numpy as np
t0 = time.perf_counter()
runs = [np.loadtxt(f, delimiter=",", skiprows=1, usecols=1) for f in sys.argv[1:]]
rng = np.random.default_rng(20240601)
base = runs[0]
for x in runs:
    q1, med, q3, p95 = np.percentile(x, [25, 50, 75, 95])
    cv = x.std(ddof=1) / x.mean()
    out = ((x < q1 - 1.5 * (q3 - q1)) | (x > q3 + 1.5 * (q3 - q1))).sum()
    if x is not base:
        b = np.median(base[rng.integers(0, len(base), (2000, len(base)))], axis=1)
        o = np.median(x[rng.integers(0, len(x), (2000, len(x)))], axis=1)
        lo, hi = np.percentile(o / b, [2.5, 97.5])
        print(f"{med / np.median(base):.4f} [{lo:.4f}, {hi:.4f}]")
print(f"in-process {1e3 * (time.perf_counter() - t0):.2f} ms", file=sys.stderr)
'''


def timed(cmd, runs):
    walls, inproc = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if r.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
        for line in r.stderr.splitlines():
            if line.startswith("in-process"):
                inproc.append(float(line.split()[1]))
    return statistics.median(walls) * 1e3, (statistics.median(inproc) if inproc else None)


def synthetic(directory, n_runs, n_iter):
    directory = pathlib.Path(directory) / f"n{n_iter}"
    directory.mkdir()
    rng = np.random.default_rng(1)
    files = []
    for i in range(n_runs):
        path = directory / f"synthetic_{i}.csv"
        values = 20 * (1 - 0.1 * i) * np.exp(0.05 * rng.standard_normal(n_iter))
        path.write_text("iteration,ms\n" + "".join(f"{k},{v:.5f}\n" for k, v in enumerate(values)))
        files.append(str(path))
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--binary", default=str(REPO / "build" / "src" / "banjia"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = pathlib.Path(tmp) / "numpy_compare.py"
        script.write_text(NUMPY_SCRIPT)
        cases = [
            ("H200 resnet50 fp32 vs bf16 (2 runs x 30 iterations)",
             [str(FIXTURES / "resnet50_fp32.csv"), str(FIXTURES / "resnet50_bf16_channels_last.csv")]),
            ("H200 all four CSVs (20-30 iterations each)", [str(p) for p in sorted(FIXTURES.glob("*.csv"))]),
            ("synthetic 3 runs x 1,000 iterations", synthetic(pathlib.Path(tmp), 3, 1000)),
            ("synthetic 3 runs x 10,000 iterations", synthetic(pathlib.Path(tmp), 3, 10000)),
        ]
        print(f"machine: {os.cpu_count()} cores; medians of {args.runs} runs; fresh process per run\n")
        print("| case | banjia bench compare (ms) | numpy script, stand-in (ms) | numpy in-process (ms) | numpy / banjia |")
        print("|---|---:|---:|---:|---:|")
        for name, files in cases:
            b, _ = timed([args.binary, "bench", "compare", "-f", "json", "-o", os.devnull, *files], args.runs)
            n, n_in = timed([sys.executable, str(script), *files], args.runs)
            print(f"| {name} | {b:.1f} | {n:.1f} | {n_in:.1f} | {n / b:.1f}x |")


if __name__ == "__main__":
    main()
