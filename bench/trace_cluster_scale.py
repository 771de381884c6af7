#!/usr/bin/env python3
"""`banjia trace summary DIR` on jobs of 16 to 1,024 ranks: wall time and peak memory against rank
count, and whether the cluster view still names the slow rank.

Each rank is one real H200 trace (tests/fixtures/gpu-h200/traces/gpt2_sdpa_bf16.json.gz, GPT-2
training steps) with Kineto's `distributedInfo` giving it its rank in a job of N; one rank (N / 3)
has every GPU kernel 1.3x as long. The traces are written once per N as .json.gz (the JSON text is
made once; only the rank differs). Peak memory is the child's maximum resident set (wait4), which
must grow with the per-rank summaries, not with the traces: the traces are read a few at a time.

    python bench/trace_cluster_scale.py BANJIA [RUNS] [SIZES]   # SIZES: comma-separated, default 16,64,256,1024
"""
import gzip
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
BASE = REPO / "tests/fixtures/gpu-h200/traces/gpt2_sdpa_bf16.json.gz"
PLACEHOLDER = "9999999999"


def rank_texts():
    """The trace as JSON text with a rank placeholder, and its text with the kernels 1.3x as long."""
    doc = json.loads(gzip.decompress(BASE.read_bytes()))
    doc["distributedInfo"] = {"backend": "nccl", "rank": int(PLACEHOLDER), "world_size": int(PLACEHOLDER) + 1}
    normal = json.dumps(doc)
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and "dur" in e:
            e["dur"] = round(e["dur"] * 1.3, 3)
    return normal, json.dumps(doc)


def write_job(root, n, normal, slow):
    slow_rank = n // 3
    for r in range(n):
        text = (slow if r == slow_rank else normal)
        text = text.replace(f'"world_size": {int(PLACEHOLDER) + 1}', f'"world_size": {n}').replace(PLACEHOLDER, str(r))
        (root / f"rank{r:04d}.pt.trace.json.gz").write_bytes(gzip.compress(text.encode(), compresslevel=1))
    return slow_rank


def run_once(banjia, root):
    t0 = time.perf_counter()
    p = subprocess.run([banjia, "trace", "summary", str(root), "--format", "json"], capture_output=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"banjia trace summary {root}: exit {p.returncode}: {p.stderr.decode()[-500:]}")
    return wall, json.loads(p.stdout)


def peak_rss_mb(banjia, root):
    """Maximum resident set of one run, from wait4 (ru_maxrss is in KiB on Linux)."""
    p = subprocess.Popen([banjia, "trace", "summary", str(root), "--format", "json"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"banjia trace summary {root}: status {status}")
    return usage.ru_maxrss / 1024


def main():
    banjia = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    sizes = [int(s) for s in (sys.argv[3] if len(sys.argv) > 3 else "16,64,256,1024").split(",")]
    normal, slow = rank_texts()
    rank_mb = len(normal) / 1e6
    print(f"Each rank: {BASE.relative_to(REPO)} ({rank_mb:.1f} MB of JSON, "
          f"{len(json.loads(normal)['traceEvents']):,} events); {runs} runs per size, median; "
          f"{os.cpu_count()} cores.")
    print()
    print("| ranks | JSON read (MB) | wall (s, median) | per rank (ms) | peak RSS (MB) | culprit named |")
    print("|---:|---:|---:|---:|---:|---|")
    for n in sizes:
        root = pathlib.Path(tempfile.mkdtemp(prefix=f"cluster_scale_{n}."))
        try:
            slow_rank = write_job(root, n, normal, slow)
            walls, named = [], True
            for _ in range(runs):
                wall, out = run_once(banjia, root)
                walls.append(wall)
                culprit = out["summary"]["cluster"]["culprit"]
                named = named and culprit is not None and culprit["rank"] == slow_rank
            rss = peak_rss_mb(banjia, root)
            med = statistics.median(walls)
            print(f"| {n:,} | {n * rank_mb:,.0f} | {med:.2f} | {1000 * med / n:.1f} | {rss:,.0f} | "
                  f"{'yes (rank ' + str(slow_rank) + ')' if named else 'NO'} |")
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
