#!/usr/bin/env python3
"""How scan and migrate grow with the findings of one file: files of 100k to 1M lines of CUDA uses
(tests/e2e/test_cost_is_linear.py proves the growth of this mix linear by counting instructions). Wall time is the median of several runs; peak memory is the child's maximum resident
set (wait4). `ast.parse` of the same file, in this process, is a stand-in for scale: the least a
Python-based scanner must do.

    .venv/bin/python bench/scan_scaling.py --banjia build/src/banjia [--runs 3] [--lines 100000,1000000]
"""
import argparse
import ast
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

PATTERNS = (
    "x{i} = y.cuda()\n",
    "torch.cuda.synchronize()\n",
    't{i} = torch.zeros(3, device="cuda")\n',
    'if torch.cuda.is_available():\n    m{i} = m.to("cuda")\n',
    "cap{i} = torch.cuda.get_device_capability()\n",
)


def cuda_uses(n: int) -> str:
    return "import torch\n" + "".join(PATTERNS[i % len(PATTERNS)].format(i=i) for i in range(n))


def run_child(cmd: list[str]) -> tuple[float, int]:
    """(wall seconds, peak resident KiB) of one run of cmd, its output discarded."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"scan_scaling: {' '.join(cmd)} exited {code}: {err.strip()[-300:]}")
    return wall, usage.ru_maxrss


def measure(cmd_for, runs: int) -> tuple[float, int]:
    walls, peaks = [], []
    for _ in range(runs):
        wall, peak = run_child(cmd_for())
        walls.append(wall)
        peaks.append(peak)
    return statistics.median(walls), max(peaks)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--banjia", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lines", default="100000,200000,400000,1000000")
    a = ap.parse_args()
    sizes = [int(s) for s in a.lines.split(",")]
    print("One file of N CUDA uses (import torch, then `.cuda()`, `torch.cuda.synchronize()`, `device=\"cuda\"`, "
          "an `is_available()` guard around `.to(\"cuda\")`, `get_device_capability()` in turn); "
          f"wall: median of {a.runs} runs; memory: peak resident set of the run.\n")
    print("| uses | lines | MB | scan s | scan peak MB | migrate -o s | migrate peak MB | ast.parse s (stand-in) | scan µs per line |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        for n in sizes:
            src = d / f"uses_{n}.py"
            text = cuda_uses(n)
            src.write_text(text)
            out = d / "out"
            scan_s, scan_kb = measure(lambda: [a.banjia, "scan", str(src), "--format", "json"], a.runs)

            def migrate_cmd() -> list[str]:
                shutil.rmtree(out, ignore_errors=True)
                return [a.banjia, "migrate", str(src), "-o", str(out)]

            mig_s, mig_kb = measure(migrate_cmd, a.runs)
            parse = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                ast.parse(text)
                parse.append(time.perf_counter() - t0)
            lines = text.count("\n")
            print(f"| {n:,} | {text.count(chr(10)):,} | {len(text) / 1e6:.1f} | {scan_s:.2f} | {scan_kb / 1024:.0f} | {mig_s:.2f} | "
                  f"{mig_kb / 1024:.0f} | {statistics.median(parse):.2f} | {scan_s / lines * 1e6:.2f} |")


if __name__ == "__main__":
    main()
