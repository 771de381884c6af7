#!/usr/bin/python3
"""Speed of `banjia compare` against numpy computing the same metrics on the same files.

Synthesises two dumps by scaling up the H200 fixture tensors (tiled to --numel elements per entry,
the second dump perturbed by bf16-like noise), in two layouts: a banjia capture dir with an
uncompressed tensors.npz, and a directory of per-entry .npy files. Both tools read the files from
the page cache (one warm-up run each). Reports medians over --runs runs, tensor data throughput
(bytes of A + B per second) and the speed ratio.

    /usr/bin/python3 bench/compare_bench.py [--pairs 32] [--numel 4194304] [--runs 3]
"""
import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from compare_reference import metrics  # noqa: E402  (the numpy definitions the tests check against)

FIXTURE = REPO / ".." / "shared" / "fixtures" / "gpu-h200" / "dumps" / "tinygpt_cuda_fp32" / "tensors.npz"


def synthesise(root, pairs, numel):
    rng = np.random.default_rng(0)
    src = np.load(FIXTURE)
    seeds = [src[k].astype(np.float32).ravel() for k in src.files[:8]]
    a, b = {}, {}
    for i in range(pairs):
        base = np.resize(seeds[i % len(seeds)], numel)
        key = f"{i:04d}.layer{i}.forward.output"
        b[key] = base
        a[key] = (base * (1 + rng.standard_normal(numel, dtype=np.float32) * 4e-3)).astype(np.float32)
    for name, arrays in (("a", a), ("b", b)):
        d = root / f"npz_{name}"
        d.mkdir()
        np.savez(d / "tensors.npz", **arrays)
        entries = [{"key": k, "module": k.split(".")[1], "type": "Synthetic", "dtype": "float32",
                    "shape": [numel]} for k in arrays]
        (d / "index.json").write_text(json.dumps({"run": name, "entries": entries}))
        n = root / f"npy_{name}"
        n.mkdir()
        for k, v in arrays.items():
            np.save(n / f"{k}.npy", v)
    return sum(v.nbytes for v in a.values()) + sum(v.nbytes for v in b.values())


def numpy_compare(dir_a, dir_b, layout):
    """Everything banjia reports per pair: msprobe metrics, RMSE, allclose, nan/inf, side stats."""
    if layout == "npz":
        za, zb = np.load(dir_a / "tensors.npz"), np.load(dir_b / "tensors.npz")
        keys = za.files
        get_a, get_b = za.__getitem__, zb.__getitem__
    else:
        keys = sorted(p.stem for p in dir_a.glob("*.npy"))
        get_a = lambda k: np.load(dir_a / f"{k}.npy", mmap_mode="r")  # noqa: E731
        get_b = lambda k: np.load(dir_b / f"{k}.npy", mmap_mode="r")  # noqa: E731
    out = {}
    for k in keys:
        x, y = get_a(k), get_b(k)
        m = metrics(x, y, 1.3e-6, 1e-5)
        for side, t in (("a", x), ("b", y)):
            t = np.asarray(t, dtype=np.float64)
            m[f"nan_{side}"] = int(np.isnan(t).sum())
            m[f"inf_{side}"] = int(np.isinf(t).sum())
            m[f"stats_{side}"] = (t.max(), t.min(), t.mean(), np.linalg.norm(t))
        out[k] = m
    return out


def timed(fn, runs):
    """Median wall seconds and median CPU seconds (this process plus its children) per run."""
    fn()  # warm-up: page cache, imports
    walls, cpus = [], []
    for _ in range(runs):
        r0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        r1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(sum(getattr(b, f) - getattr(a, f) for a, b in ((r0, r1), (c0, c1))
                        for f in ("ru_utime", "ru_stime")))
    return statistics.median(walls), statistics.median(cpus)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=32)
    ap.add_argument("--numel", type=int, default=4 << 20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--banjia", default=str(REPO / "build" / "src" / "banjia"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="banjia_compare_bench_") as tmp:
        root = pathlib.Path(tmp)
        total = synthesise(root, args.pairs, args.numel)
        print(f"{args.pairs} pairs x {args.numel} float32 elements: {total / 1e9:.2f} GB of tensor data "
              f"(A + B), {os.cpu_count()} cores")
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print(f"{'layout':<7} {'banjia s':>9} {'numpy s':>8} {'banjia GB/s':>12} {'numpy GB/s':>11} {'ratio':>6}"
              f" {'banjia cpu s':>13} {'numpy cpu s':>12} {'GB/s per 2 cpu-s':>17}")
        for layout in ("npy", "npz"):
            a, b = root / f"{layout}_a", root / f"{layout}_b"
            cmd = [args.banjia, "compare", str(a), str(b), "--format", "json", "-o", os.devnull]
            check = subprocess.run(cmd[:-1] + ["-"], capture_output=True, text=True)
            assert check.returncode in (0, 1), check.stderr
            got = {e["key"]: e for e in json.loads(check.stdout)["entries"]}
            ref = numpy_compare(a, b, layout)
            assert len(got) == len(ref) == args.pairs
            for k, m in ref.items():  # same numbers, or the comparison is meaningless
                assert abs(got[k]["max_rel_err"] - m["max_rel_err"]) <= 1e-9 * m["max_rel_err"], k
                assert abs(got[k]["rmse"] - m["rmse"]) <= 1e-9 * m["rmse"], k
            tb, cb = timed(lambda: subprocess.run(cmd, check=False, capture_output=True), args.runs)
            tn, cn = timed(lambda: numpy_compare(a, b, layout), args.runs)
            # The last column is the rate the CPU time allows on 2 otherwise idle cores: it keeps
            # the result meaningful on a machine shared with other work.
            print(f"{layout:<7} {tb:>9.3f} {tn:>8.3f} {total / tb / 1e9:>12.2f} {total / tn / 1e9:>11.3f} "
                  f"{tn / tb:>5.1f}x {cb:>13.3f} {cn:>12.3f} {total / (cb / 2) / 1e9:>17.2f}")


if __name__ == "__main__":
    main()
