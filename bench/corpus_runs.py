#!/usr/bin/env python3
"""Does a migrated modern code base run? For repositories of the corpus (bench/corpus.tsv, obtained by
bench/corpus_setup.sh), migrate the tree with `banjia migrate --target npu`, make tiny synthetic data
in the migrated tree, and run the repository's own training entry point, tiny and for a few steps,
under the simulated NPU: `python -m banjia.npu_sim SCRIPT ...`, and with two processes
`python -m banjia.npu_sim -m torch.distributed.run --nproc-per-node 2 SCRIPT ...`. torch.compile is
left as the program writes it. A run passes only when npu_sim exits 0 (the program exited 0, ran ops
on npu, touched no CUDA); otherwise the table says why, with the first error line and its file:line.

    python bench/corpus_runs.py --banjia build-release/src/banjia [--python .venv/bin/python] [--json FILE]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional

REPO = pathlib.Path(__file__).resolve().parent.parent
CACHE = pathlib.Path(os.environ.get("BENCH_CACHE") or
                     pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "banjia-bench")
TWO_PROCESSES = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]


@dataclasses.dataclass(frozen=True)
class EntryPoint:
    """One run: a repository of the corpus, the data it needs, and its command line after migration.
    make_data(migrated tree, original tree) writes the data and returns environment variables the run
    needs."""
    label: str
    repo: str  # name in bench/corpus.tsv
    make_data: Callable[[pathlib.Path, pathlib.Path], dict[str, str]]
    launcher: list[str]  # [] for one process, TWO_PROCESSES for two
    script: str
    args: list[str]
    tree_on_path: bool = False  # the script imports the tree's packages (nanochat's `python -m scripts.X` layout)
    timeout_s: float = 300


def nanogpt_char_data(tree: pathlib.Path, _original: pathlib.Path) -> dict[str, str]:
    """data/shakespeare_char as nanoGPT's prepare.py writes it (uint16 train.bin/val.bin and meta.pkl),
    from a fixed pseudo-random text over a 65-character vocabulary, so that runs repeat exactly."""
    import numpy as np
    out = tree / "data" / "shakespeare_char"
    out.mkdir(parents=True, exist_ok=True)
    chars = [chr(c) for c in range(32, 97)]  # 65 characters, as tiny shakespeare has
    ids = np.random.RandomState(0).randint(0, len(chars), size=20_000).astype(np.uint16)
    ids[:18_000].tofile(out / "train.bin")
    ids[18_000:].tofile(out / "val.bin")
    with open(out / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)),
                     "stoi": {c: i for i, c in enumerate(chars)}}, f)
    return {}


def nanochat_data(tree: pathlib.Path, original: pathlib.Path) -> dict[str, str]:
    """Two parquet shards of fixed pseudo-random English words where nanochat's dataset.py looks
    ($NANOCHAT_BASE_DIR/base_data_climbmix: train, then the last shard for validation), and a small
    tokenizer trained on them by nanochat's own scripts/tok_train.py (the original tree, plain Python:
    tokenizer training touches no device)."""
    import numpy as np
    # bench/corpus_setup.sh installs pyarrow into $BENCH_CACHE/corpus-venv
    import pyarrow as pa  # type: ignore[import-not-found, import-untyped, unused-ignore]
    import pyarrow.parquet as pq  # type: ignore[import-not-found, import-untyped, unused-ignore]
    base = tree / "bench-nanochat-base"
    shards = base / "base_data_climbmix"
    shards.mkdir(parents=True, exist_ok=True)
    rng = np.random.RandomState(0)
    words = ("the of and to in a is that for it as was with be by on not he this are or his from at which "
             "but have an they you were her she there one all we their").split()
    for shard in range(2):
        docs = [" ".join(rng.choice(words, size=rng.randint(50, 200))) + "." for _ in range(200)]
        pq.write_table(pa.table({"text": docs}), shards / f"shard_{shard:05d}.parquet", row_group_size=50)
    env = {"NANOCHAT_BASE_DIR": str(base)}
    subprocess.run([sys.executable, "-m", "scripts.tok_train", "--max-chars=100000", "--vocab-size=512"],
                   cwd=original, env=dict(os.environ, **env), check=True, capture_output=True)
    return env


NANOGPT_TINY = ["--dataset=shakespeare_char", "--n_layer=2", "--n_head=2", "--n_embd=32", "--block_size=32",
                "--batch_size=4", "--max_iters=3", "--lr_decay_iters=3", "--warmup_iters=1", "--eval_interval=2",
                "--eval_iters=2", "--log_interval=1", "--compile=True", "--device=npu", "--out_dir=out-tiny"]
NANOCHAT_TINY = ["--depth=2", "--aspect-ratio=32", "--head-dim=32", "--max-seq-len=64", "--window-pattern=L",
                 "--num-iterations=3", "--device-batch-size=2", "--total-batch-size=128", "--warmup-steps=1",
                 "--eval-every=-1", "--core-metric-every=-1", "--sample-every=-1"]
ENTRY_POINTS = (
    EntryPoint("nanoGPT train.py, 1 process (torch.compile, amp)", "nanoGPT", nanogpt_char_data, [], "train.py",
               NANOGPT_TINY + ["--gradient_accumulation_steps=1"]),
    EntryPoint("nanoGPT train.py, 2 processes (torch.compile, DDP over hccl)", "nanoGPT", nanogpt_char_data,
               TWO_PROCESSES, "train.py", NANOGPT_TINY + ["--gradient_accumulation_steps=2"]),
    EntryPoint("nanochat scripts/base_train.py, 1 process (torch.compile, Muon)", "nanochat", nanochat_data, [],
               "scripts/base_train.py", NANOCHAT_TINY, tree_on_path=True),
)


def read_pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "bench" / "corpus.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _github, commit, *_ = line.split("\t")
            pins[name] = commit
    return pins


FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)')
SIM_STOP = re.compile(r"^banjia npu_sim: (.+?:\d+): (.*)$")
EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b.*)$")


def first_error(output: str, tree: pathlib.Path) -> tuple[str, str]:
    """(error line, file:line) of a failed run: the simulator's own stop line (it names the program's
    frame), else the first exception of a traceback and its innermost frame inside the migrated tree
    (else its innermost frame), else the first line that says error."""
    lines = output.splitlines()
    for line in lines:
        m = SIM_STOP.match(line.strip())
        if m and not m.group(1).startswith("aten ops") and "CUDA uses" not in line:
            return m.group(2), m.group(1)
    frames: list[tuple[str, str]] = []
    for line in lines:
        frame = FRAME.match(line)
        if frame:
            frames.append((frame.group(1), frame.group(2)))
            continue
        exc = EXCEPTION.match(line.strip())
        if exc and frames:
            own = [f for f in frames if f[0].startswith(str(tree))]
            path, number = (own or frames)[-1]
            shown = os.path.relpath(path, tree) if path.startswith(str(tree)) else path
            return exc.group(1)[:300], f"{shown}:{number}"
    for line in lines:
        if re.search(r"error|usage", line, re.IGNORECASE):
            return line.strip()[:300], "—"
    return (lines[-1].strip()[:300] if lines else "(no output)"), "—"


def compiled_frames(output: str) -> Optional[int]:
    """Frames torch.compile traced, from TORCH_LOGS=dynamo's exit summary (summed over processes);
    None when no summary was printed (the program stopped before torch.compile ran, or never used it)."""
    total: Optional[int] = None
    inside = False
    for line in output.splitlines():
        text = line.split("] ", 1)[-1] if "] " in line else line
        if "TorchDynamo attempted to trace the following frames: [" in line:
            inside, total = True, total or 0
        elif inside and text.strip() == "]":
            inside = False
        elif inside and text.strip().startswith("*"):
            total = (total or 0) + 1
    return total


def run_entry(entry: EntryPoint, banjia: str, python: str, tmp: pathlib.Path) -> dict[str, Any]:
    src = CACHE / "corpus" / entry.repo
    stamp = src / ".source_commit"
    pinned = read_pins().get(entry.repo, "")
    result: dict[str, Any] = {"label": entry.label, "repo": entry.repo, "commit": pinned}
    if not stamp.is_file() or stamp.read_text().strip() != pinned:
        result.update(status="not run", error=f"{src} is not at the pinned commit (run bench/corpus_setup.sh)", where="—")
        return result
    tree = tmp / f"{entry.repo}-npu"
    migrated = subprocess.run([banjia, "migrate", str(src), "-o", str(tree)], capture_output=True, text=True)
    if migrated.returncode != 0:
        result.update(status="migrate failed", error=migrated.stderr.strip()[-300:], where="—")
        return result
    try:
        extra_env = entry.make_data(tree, src)
    except (ImportError, subprocess.CalledProcessError) as e:
        detail = e.stderr.strip().splitlines()[-1] if isinstance(e, subprocess.CalledProcessError) and e.stderr else str(e)
        result.update(status="no data", error=f"making the data failed: {detail}", where="—")
        return result
    cmd = [python, "-m", "banjia.npu_sim", *entry.launcher, entry.script, *entry.args]
    path = [str(tree)] if entry.tree_on_path else []
    # TORCH_LOGS=dynamo makes torch list, at exit, the frames torch.compile traced (none means it fell back to eager).
    env = dict(os.environ, **extra_env, PYTHONPATH=os.pathsep.join(path + [str(REPO / "python")]), OMP_NUM_THREADS="1",
               TORCH_LOGS="dynamo")
    result["command"] = " ".join([f"{k}=..." for k in sorted(extra_env)] + (["PYTHONPATH=OUT:python"] if path else [])
                                 + ["python", *cmd[1:]])
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=entry.timeout_s)
        rc: Optional[int] = proc.returncode
        output = proc.stdout + "\n" + proc.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        output = (e.stdout or b"").decode(errors="replace") + "\n" + (e.stderr or b"").decode(errors="replace")
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    result["rc"] = rc
    result["sim_summary"] = [line.strip() for line in output.splitlines()
                             if line.startswith("banjia npu_sim: aten ops") or line.startswith("banjia npu_sim: CUDA uses")]
    result["compiled_frames"] = compiled_frames(output)
    if rc == 0:
        result.update(status="passed", error="", where="")
    else:
        error, where = first_error(output, tree)
        status = f"stopped after {entry.timeout_s:.0f} s" if rc is None else f"failed (exit {rc})"
        result.update(status=status, error=error, where=where)
        result["output_tail"] = output.strip().splitlines()[-25:]
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--banjia", default=str(REPO / "build-release" / "src" / "banjia"))
    ap.add_argument("--python", default=sys.executable,
                    help="the Python of the runs (default: this one; bench/run.sh uses $BENCH_CACHE/corpus-venv)")
    ap.add_argument("--json", type=pathlib.Path, default=REPO / "bench" / "results" / "corpus_runs.json")
    args = ap.parse_args()
    results = []
    for entry in ENTRY_POINTS:
        print(f"corpus_runs: {entry.label}", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="banjia_corpus_run_") as tmp:
            results.append(run_entry(entry, args.banjia, args.python, pathlib.Path(tmp)))
    print("Each repository at its pinned commit, migrated with `banjia migrate SRC -o OUT` (target npu), tiny "
          "synthetic data written into OUT, then the command below run in OUT with PYTHONPATH=python (this "
          "repository's banjia package). Passed = npu_sim exit 0: the program exited 0, ran its ops on npu and "
          "touched no CUDA.")
    print()
    print("| entry point | repository @ commit | result | wall s | first error | at | frames torch.compile traced | npu_sim summary |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        summary = "; ".join(s.removeprefix("banjia npu_sim: ") for s in r.get("sim_summary", [])) or "—"
        error = str(r["error"]).replace("|", "\\|").replace("`", "'")
        print(f"| {r['label']} | {r['repo']} @ {str(r['commit'])[:10]} | {r['status']} | {r.get('wall_s', '—')} | "
              f"{'`' + error + '`' if error else '—'} | {'`' + str(r['where']) + '`' if r['where'] else '—'} | "
              f"{r.get('compiled_frames') if r.get('compiled_frames') is not None else '—'} | {summary} |")
    print()
    for r in results:
        print(f"- {r['label']}: `{r.get('command', '')}`")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": results}, indent=1, sort_keys=True) + "\n")
    print(f"corpus_runs: wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
