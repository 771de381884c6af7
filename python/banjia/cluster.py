"""banjia.cluster: the cluster view of a job's profiles, the per-rank step run as Ray tasks.

    python -m banjia.cluster --address auto ranks/* --out summaries/ [-- --format json -o cluster.json]

Each input (one rank's trace file or torch_npu ``*_ascend_pt`` directory, on storage every Ray node
reads) becomes one Ray task that runs ``banjia trace summary INPUT --format json`` on the node Ray
picks and returns the report. The driver writes each report to ``--out`` as it arrives (its memory
holds one report at a time, never the traces) and then runs ``banjia trace cluster`` on them, which
prints the same cluster view as ``banjia trace summary`` of all the inputs on one machine. Ray
places, runs and retries the tasks; this module only submits them and collects their results.

``--address`` is Ray's: ``auto`` joins the cluster this machine belongs to (``ray start``), an
address such as ``ray://head:10001`` a remote one; without it Ray starts a local instance. Every
node needs the ``banjia`` executable (``pip install banjia``) or ``--banjia PATH`` valid on it.
The same per-rank-report-then-merge flow runs as a Slurm job array (docs/trace.md).
"""
from __future__ import annotations

import argparse
import logging
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from typing import Sequence


def summarize_rank(banjia: str, trace: str) -> str:
    """One rank's ``trace summary --format json`` report (the Ray task). One worker thread: Ray
    gives each task one CPU."""
    p = subprocess.run([banjia, "trace", "summary", trace, "--format", "json", "--jobs", "1"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: findings at or above --fail-on, the report is complete
        raise RuntimeError(f"{trace}: banjia trace summary exited {p.returncode}: {p.stderr.strip()[-500:]}")
    return p.stdout


def collect(inputs: Sequence[str], out_dir: pathlib.Path, banjia: str, address: str | None) -> list[pathlib.Path]:
    """Runs summarize_rank for every input as Ray tasks and writes each report to out_dir as it
    arrives, named after its input's position. Returns the report files in input order."""
    import ray

    ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(summarize_rank)
        pending = {task.remote(banjia, path): i for i, path in enumerate(inputs)}
        files = [out_dir / f"rank-input-{i:05d}.json" for i in range(len(inputs))]
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                try:
                    report = ray.get(ref)
                except ray.exceptions.RayTaskError as e:  # the task's own exception, without Ray's traceback
                    raise RuntimeError(str(e.cause) if e.cause is not None else str(e)) from None
                files[pending.pop(ref)].write_text(report)
        return files
    finally:
        ray.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cluster_args: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, cluster_args = args[:cut], args[cut + 1:]
    ap = argparse.ArgumentParser(prog="python -m banjia.cluster", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="one trace file or torch_npu *_ascend_pt directory per rank")
    ap.add_argument("--address", default=None, help="Ray cluster to join (auto, ray://HOST:PORT); default: a local Ray")
    ap.add_argument("--out", type=pathlib.Path, help="directory for the per-rank reports (default: a temporary one)")
    ap.add_argument("--banjia", default=os.environ.get("BANJIA_BIN") or "banjia",
                    help="the banjia executable as every Ray node finds it (default: $BANJIA_BIN, else banjia on PATH)")
    a = ap.parse_args(args)
    merge_with = shutil.which(a.banjia) or a.banjia
    out_dir = a.out or pathlib.Path(tempfile.mkdtemp(prefix="banjia-cluster-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        files = collect([str(p) for p in a.inputs], out_dir, a.banjia, a.address)
        return subprocess.run([merge_with, "trace", "cluster", *map(str, files), *cluster_args]).returncode
    except RuntimeError as e:
        print(f"banjia.cluster: {e}", file=sys.stderr)
        return 2
    finally:
        if a.out is None:
            shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
