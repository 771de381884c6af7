#!/usr/bin/env python3
"""Side-by-side: `banjia scan` vs `ast.parse` over the same files, plus `banjia migrate` of the same
tree to a temp dir. Medians over several runs.

`ast.parse` is a stand-in, not a peer: no other tool scans a project for CUDA-specific code to run
against (msFmkTransplt, the real peer of `migrate`, is measured by bench/migrate_peers.py);
parsing every file is the least a Python-based scanner must do. The default tree is the torch
package of the Python running this script (the repository's .venv).

    .venv/bin/python bench/scan_bench.py [--banjia build-release/src/banjia] [--runs 5] [--tree DIR]
"""
import argparse
import ast
import os
import pathlib
import resource
import shutil
import sysconfig
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def cpu_seconds():
    """CPU time (user + sys) of this process and its waited-for children so far."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def interleaved_times(fns, runs):
    """Runs every function of `fns` (name -> callable) once per round, for `runs` rounds, in turn:
    on a machine whose speed drifts (a shared VM) every contender then meets the same drift, instead
    of one block of runs meeting a slow spell the other missed. Each timed call follows an untimed
    warm-up call of the same function (hyperfine's --warmup): otherwise a multi-threaded run right
    after 2 s of single-threaded ast.parse meets the other core idle and cold (on this VM up to +20 %).
    Returns name -> (per-round wall times, per-round CPU times, user + sys); on a shared machine the
    CPU time is the steadier measure of the work itself."""
    out = {name: ([], []) for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            fn()  # warm-up
            c0, t0 = cpu_seconds(), time.perf_counter()
            fn()
            out[name][0].append(time.perf_counter() - t0)
            out[name][1].append(cpu_seconds() - c0)
    return out


def shown_path(path: str) -> str:
    """`path` relative to the repository when it lies inside it (the .venv's torch), else as given."""
    p = pathlib.Path(path).absolute()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--banjia", default=str(ROOT / "build-release" / "src" / "banjia"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", default=str(pathlib.Path(sysconfig.get_paths()["purelib"]) / "torch"))
    ap.add_argument("--out", help="also write the table to this file")
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
    load_before = os.getloadavg()[0]
    times = interleaved_times({"ast": ast_parse_all, "scan2": banjia_scan(2), "scan1": banjia_scan(1),
                               "migrate": banjia_migrate}, args.runs)
    med = {name: (statistics.median(w), statistics.median(c)) for name, (w, c) in times.items()}
    (t_ast, c_ast), (t_scan2, c_scan2), (t_scan1, c_scan1), (t_migrate, c_migrate) = (
        med["ast"], med["scan2"], med["scan1"], med["migrate"])
    # Each round's own ratio: ast.parse and the scan measured seconds apart.
    round_ratios = sorted(a / b for a, b in zip(times["ast"][0], times["scan2"][0]))
    load_after = os.getloadavg()[0]
    shutil.rmtree(tmp, ignore_errors=True)

    rows = [
        (f"`ast.parse` of every file (stand-in; Python {sys.version.split()[0]}, in-process, 1 core)", t_ast, c_ast, ""),
        ("`banjia scan -j 1` (whole scan: walk, read, tokenize, resolve, match, JSON)", t_scan1, c_scan1,
         f"{t_ast / t_scan1:.1f}x faster than ast.parse"),
        ("`banjia scan -j 2`", t_scan2, c_scan2, f"{t_ast / t_scan2:.1f}x faster than ast.parse"),
        ("`banjia migrate` to a temp dir (-j 2, copy + rewrite)", t_migrate, c_migrate, ""),
    ]
    lines = [
        f"Tree: `{shown_path(args.tree)}` — {len(files)} .py files, {mb:.1f} MB; median of {args.runs} runs; "
        f"load average {load_before:.1f} before, {load_after:.1f} after ({os.cpu_count()} cores); "
        "the four measurements interleaved, one of each per round, each after an untimed warm-up call.",
        "",
        "| what | wall (median) | throughput | CPU user+sys (median) | MB per CPU-second | ratio (wall) |",
        "|---|---|---|---|---|---|",
    ]
    for name, t, c, note in rows:
        lines.append(f"| {name} | {t * 1000:.0f} ms | {mb / t:.0f} MB/s | {c * 1000:.0f} ms | {mb / c:.0f} | {note} |")
    lines.append("")
    lines.append(f"Per core (scan -j 1): {mb / t_scan1:.0f} MB/s by wall time, {mb / c_scan1:.0f} MB per CPU-second. "
                 f"CPU-time ratio scan -j 1 vs ast.parse: {c_ast / c_scan1:.1f}x.")
    lines.append(f"Per-round ratio ast.parse / scan -j 2: median {statistics.median(round_ratios):.1f}x, "
                 f"range {round_ratios[0]:.1f}x to {round_ratios[-1]:.1f}x over {len(round_ratios)} rounds.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
