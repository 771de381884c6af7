#!/usr/bin/env python3
"""Measures `banjia env check` and `banjia env translate` on a generated 20,000-line launch script.

No speed target is named for `env`; this records absolute numbers (median of several runs) so that
regressions show up. Usage: bench/env_bench.py [BANJIA_BIN] [RUNS]
"""
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

LINES = [
    "export TASK_QUEUE_ENABLE=2",
    "export CUDA_VISIBLE_DEVICES=0,1,2,3",
    "export PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True,backend:cudaMallocAsync\"",
    "NPU_MEMCHECK=1 python train.py --lr 0.1 \"$CUDA_VISIBLE_DEVICES\"",
    "export HCCL_IF_IP=$(hostname -I | awk '{print $1}')  # comment",
]


def median_seconds(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/src/banjia"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as d:
        script = pathlib.Path(d) / "big.sh"
        script.write_text("\n".join(LINES[i % len(LINES)] for i in range(20000)) + "\n")
        check = median_seconds([binary, "env", "check", script, "-f", "json"], runs)
        translate = median_seconds([binary, "env", "translate", script], runs)
        explain = median_seconds([binary, "env", "explain", "alloc"], runs)
    print(f"env check     20000 lines: {check * 1000:.0f} ms (median of {runs})")
    print(f"env translate 20000 lines: {translate * 1000:.0f} ms (median of {runs})")
    print(f"env explain alloc        : {explain * 1000:.0f} ms (median of {runs})")


if __name__ == "__main__":
    main()
