#!/usr/bin/env python3
"""Start-up cost, side by side: small `banjia` commands (the cost of every pre-commit hook or editor
run) next to the floor of any Python-based tool (starting this Python and importing `ast`), and
a C program that does nothing (the cost of starting any process from Python's subprocess here).
Medians over interleaved rounds.

    .venv/bin/python bench/startup_bench.py [--banjia build-release/src/banjia] [--runs 41]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--banjia", default=str(ROOT / "build-release" / "src" / "banjia"))
    ap.add_argument("--runs", type=int, default=41)
    args = ap.parse_args()
    one_file = str(ROOT / "examples" / "cifar_ddp" / "train.py")
    with tempfile.TemporaryDirectory() as tmp:
        noop = pathlib.Path(tmp) / "noop"
        subprocess.run(["cc", "-O2", "-x", "c", "-", "-o", str(noop)], input=b"int main(void){return 0;}", check=True)
        commands = {
            "a C program that does nothing": [str(noop)],
            "`python3 -c 'import ast'` (floor of a Python-based tool)": [sys.executable, "-c", "import ast"],
            "`banjia --version`": [args.banjia, "--version"],
            "`banjia scan` of one file (examples/cifar_ddp/train.py)": [args.banjia, "scan", one_file, "-o", os.devnull],
            "`banjia env explain ASCEND_RT_VISIBLE_DEVICES`": [args.banjia, "env", "explain", "ASCEND_RT_VISIBLE_DEVICES"],
        }
        times = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[name].append(time.perf_counter() - t0)
    floor = statistics.median(times["`python3 -c 'import ast'` (floor of a Python-based tool)"])
    print(f"Median of {args.runs} interleaved rounds, wall time including process start from Python's subprocess.")
    print()
    print("| command | wall (median) | vs `python3 -c 'import ast'` |")
    print("|---|---|---|")
    for name, t in times.items():
        m = statistics.median(t)
        print(f"| {name} | {m * 1e3:.2f} ms | {floor / m:.1f}x |")


if __name__ == "__main__":
    main()
