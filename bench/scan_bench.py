#!/usr/bin/env python3
"""Side-by-side: `banjia scan` vs `ast.parse` (what a Python-based scanner must do at least) over the
same files, plus `banjia migrate` of the same tree to a temp dir. Medians over several runs.

    /usr/bin/python3 bench/scan_bench.py [--banjia build-release/src/banjia] [--runs 5] [--tree DIR]

Prints a Markdown table (also written to bench/results/scan.md).
"""
import argparse
import ast
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--banjia", default=str(ROOT / "build-release" / "src" / "banjia"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", default="/usr/lib/python3/dist-packages/torch")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "scan.md"))
    args = ap.parse_args()

    files = sorted(p for p in pathlib.Path(args.tree).rglob("*.py"))
    sources = [p.read_bytes() for p in files]
    total = sum(len(s) for s in sources)
    mb = total / 1e6

    def ast_parse_all():
        for p, s in zip(files, sources):
            try:
                ast.parse(s, filename=str(p))
            except SyntaxError:
                pass

    def banjia_scan(threads):
        def go():
            subprocess.run([args.banjia, "scan", args.tree, "--format", "json", "-o", os.devnull, "--fail-on", "none",
                            "-j", str(threads)], check=True)
        return go

    tmp = tempfile.mkdtemp()

    def banjia_migrate():
        out = pathlib.Path(tmp) / "out"
        if out.exists():
            shutil.rmtree(out)
        subprocess.run([args.banjia, "migrate", args.tree, "-o", str(out)], check=True, stdout=subprocess.DEVNULL)

    banjia_scan(2)()  # warm the page cache
    t_ast, _ = median_time(ast_parse_all, args.runs)
    t_scan2, _ = median_time(banjia_scan(2), args.runs)
    t_scan1, _ = median_time(banjia_scan(1), args.runs)
    t_migrate, _ = median_time(banjia_migrate, args.runs)
    shutil.rmtree(tmp, ignore_errors=True)

    rows = [
        ("`ast.parse` of every file (/usr/bin/python3, in-process, 1 core)", t_ast, ""),
        ("`banjia scan -j 1` (whole scan: walk, read, tokenize, resolve, match, JSON)", t_scan1,
         f"{t_ast / t_scan1:.1f}x faster than ast.parse"),
        ("`banjia scan -j 2`", t_scan2, f"{t_ast / t_scan2:.1f}x faster than ast.parse"),
        ("`banjia migrate` to a temp dir (-j 2, copy + rewrite)", t_migrate, ""),
    ]
    lines = [
        f"Tree: `{args.tree}` — {len(files)} .py files, {mb:.1f} MB; median of {args.runs} runs.",
        "",
        "| what | median | throughput | ratio |",
        "|---|---|---|---|",
    ]
    for name, t, note in rows:
        lines.append(f"| {name} | {t * 1000:.0f} ms | {mb / t:.0f} MB/s | {note} |")
    lines.append("")
    lines.append(f"Per core (scan -j 1): {mb / t_scan1:.0f} MB/s.")
    text = "\n".join(lines) + "\n"
    print(text)
    pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
