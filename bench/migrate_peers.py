#!/usr/bin/env python3
"""`banjia migrate` vs msFmkTransplt (Ascend mstt's PyTorch GPU2Ascend tool,
msfmktransplt/src/ms_fmk_transplt/ms_fmk_transplt.py, the program behind pytorch_gpu2npu.sh) on real
repositories: pytorch/examples, karpathy/nanoGPT, and this repository's examples/cifar_ddp.

The sources come from bench/peers_setup.sh ($BENCH_CACHE/src); msFmkTransplt runs in the peers'
venv (libcst, jedi, pandas, prettytable) as `-i SRC -o OUT -v 2.1.0`. Each tool writes a migrated
copy; medians of several runs, peak RSS, and what is left in the migrated Python files, counted
here with Python's own `ast` (the same count for the original and both outputs):
- device literals: string constants (f-string parts included) equal to "cuda" or "nccl" or
  starting with "cuda:" (what a device or backend argument holds);
- any string constant that mentions cuda or nccl (case-insensitive; messages and docstrings too);
- `torch.cuda` references: attribute chains `torch.cuda.X` (after `import torch`);
- files that no longer parse (a rewrite that broke the syntax).

    python bench/migrate_peers.py --banjia build-release/src/banjia [--runs 5] [--peer-runs 3] [--quick]
"""
import ast
import os
import pathlib
import re
import shutil
import tempfile

import peerlib
from peerlib import median, run, table

MSFT = peerlib.CACHE / "src" / "mstt" / "msfmktransplt" / "src" / "ms_fmk_transplt"
PROJECTS = [("pytorch/examples", peerlib.CACHE / "src" / "examples"),
            ("karpathy/nanoGPT", peerlib.CACHE / "src" / "nanoGPT"),
            ("examples/cifar_ddp (this repository)", peerlib.REPO / "examples" / "cifar_ddp")]
SKIP_DIRS = {".git", "transplant_result_file", "__pycache__"}


def is_device_literal(value: str) -> bool:
    return value in ("cuda", "nccl") or value.startswith("cuda:")


def count_tree(root: pathlib.Path) -> dict:
    """Counts over every .py file under root (see the module docstring)."""
    c = {"files": 0, "device": 0, "mentions": 0, "torch_cuda": 0, "unparsed": 0}
    for path in sorted(root.rglob("*.py")):
        if SKIP_DIRS & set(path.relative_to(root).parts):
            continue
        c["files"] += 1
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            c["unparsed"] += 1
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                c["device"] += is_device_literal(node.value)
                low = node.value.lower()
                c["mentions"] += "cuda" in low or "nccl" in low
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                  and node.value.attr == "cuda" and isinstance(node.value.value, ast.Name)
                  and node.value.value.id == "torch"):
                c["torch_cuda"] += 1
    return c


def changed_files(original: pathlib.Path, migrated: pathlib.Path) -> int:
    n = 0
    for path in original.rglob("*.py"):
        other = migrated / path.relative_to(original)
        n += other.exists() and other.read_bytes() != path.read_bytes()
    return n


def run_banjia(banjia: str, src: pathlib.Path, out: pathlib.Path) -> peerlib.Run:
    shutil.rmtree(out, ignore_errors=True)
    return run([banjia, "migrate", src, "-o", out])


def run_msft(src: pathlib.Path, out: pathlib.Path, timeout: float) -> tuple[peerlib.Run, pathlib.Path]:
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    r = run([peerlib.PEER_PY, MSFT / "ms_fmk_transplt.py", "-i", src, "-o", out, "-v", "2.1.0"],
            env={"PYTHONPATH": str(MSFT)}, timeout=timeout)
    return r, out / (src.name + "_msft")


def main() -> None:
    ap = peerlib.argument_parser(__doc__, runs=5, peer_runs=3, quick_help="nanoGPT and examples/cifar_ddp only",
                                 peer="msFmkTransplt")
    args = ap.parse_args()
    deps = peerlib.peer_status("msfmktransplt_deps")
    src_status = peerlib.peer_status("src_mstt")
    msft_ok = deps == "ok" and src_status == "ok" and (MSFT / "ms_fmk_transplt.py").exists()
    why_not = deps if deps != "ok" else src_status if src_status != "ok" else "ms_fmk_transplt.py not found"
    commit = (peerlib.CACHE / "src" / "mstt" / ".source_commit")
    print(f"msFmkTransplt: {'mstt ' + commit.read_text().strip()[:10] if msft_ok else 'not available: ' + why_not}; "
          f"load average before {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores.")
    print()
    print("Measured commands: `banjia migrate SRC -o OUT`; `PYTHONPATH=MSFT python MSFT/ms_fmk_transplt.py -i SRC "
          "-o OUT -v 2.1.0` (MSFT = mstt's msfmktransplt/src/ms_fmk_transplt; what pytorch_gpu2npu.sh runs).")
    print()
    speed, left = [], []
    projects = [p for p in PROJECTS if not args.quick or "pytorch/examples" not in p[0]]
    with tempfile.TemporaryDirectory(prefix="banjia_migrate_peers_") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        for label, src in projects:
            status = peerlib.peer_status("src_" + src.name) if src.is_relative_to(peerlib.CACHE) else "ok"
            if status != "ok" or not src.is_dir():
                speed.append((label, f"source not available: {status}", "", "", "", "", "", ""))
                continue
            commit_file = src / ".source_commit"
            name = label + (f" @ {commit_file.read_text().strip()[:10]}" if commit_file.exists() else "")
            b_out = tmp / "banjia_out"
            b_runs, m_runs, failure, m_out = [], [], "", None
            for i in range(max(args.runs, args.peer_runs)):
                if i < args.runs:
                    r = run_banjia(args.banjia, src, b_out)
                    if not r.ok:
                        raise SystemExit(f"banjia migrate {src}: {r.failure()}")
                    b_runs.append(r)
                if msft_ok and i < args.peer_runs and not failure:
                    r, m_out = run_msft(src, tmp / "msft_out", args.timeout)
                    if r.ok and m_out.is_dir():
                        m_runs.append(r)
                    else:
                        failure = r.failure() if not r.ok else f"no {m_out.name} written"
            summary = re.search(r"(\d+) files examined, (\d+) changed, (\d+) edits; (\d+) items left",
                            b_runs[-1].stderr + b_runs[-1].stdout)
            b_edits = f"{summary.group(3)} edits, {summary.group(4)} left for a person" if summary else "?"
            py_files = count_tree(src)["files"]
            bm = median([r.wall for r in b_runs])
            if m_runs:
                mm = median([r.wall for r in m_runs])
                changes = m_out / "transplant_result_file" / "change_list.csv"
                m_edits = f"{max(0, len(changes.read_text().splitlines()) - 1)} changes" if changes.exists() else "?"
                speed.append((name, py_files, f"{bm * 1e3:.0f}", f"{mm:.1f}", f"{mm / bm:.0f}x",
                              f"{max(r.rss_mb for r in b_runs):.0f} / {max(r.rss_mb for r in m_runs):.0f}",
                              f"{changed_files(src, b_out)} / {changed_files(src, m_out)}", f"{b_edits} / {m_edits}"))
            else:
                speed.append((name, py_files, f"{bm * 1e3:.0f}", "—", "—", f"{max(r.rss_mb for r in b_runs):.0f} / —",
                              f"{changed_files(src, b_out)} / —", f"{b_edits} / msFmkTransplt: {failure or why_not}"))
            for tool, tree in (("original", src), ("banjia migrate", b_out), ("msFmkTransplt", m_out if m_runs else None)):
                if tree is None:
                    left.append((name, tool, "—", "—", "—", "—"))
                    continue
                c = count_tree(tree)
                left.append((name, tool, c["device"], c["mentions"], c["torch_cuda"], c["unparsed"]))
    measured = [row for row in speed if row[3] not in ("—", "")]
    if not measured:
        peerlib.glance("`migrate`", "msFmkTransplt", speed[0][0] if speed else "", "", f"not measured: {why_not}",
                       "", "", "")
    else:
        first = measured[0]
        lit = {row[1]: row[2] for row in left if row[0] == first[0]}
        peerlib.glance("`migrate`", "msFmkTransplt", first[0], f"{first[2]} ms", f"{first[3]} s", first[4],
                       f"{first[5]} MB", f'"cuda"/"nccl" literals left: {lit.get("banjia migrate")} (banjia), '
                       f'{lit.get("msFmkTransplt")} (msFmkTransplt), of {lit.get("original")}')
    print(f"### Speed (runs: banjia {args.runs}, msFmkTransplt {args.peer_runs}; each writes a migrated copy)")
    print()
    print(table(["project", ".py files", "banjia median (ms)", "msFmkTransplt median (s)", "msFmkTransplt / banjia",
                 "peak RSS MB (banjia / msFmkTransplt)", ".py files changed (banjia / msFmkTransplt)",
                 "reported (banjia / msFmkTransplt change_list.csv rows)"], speed))
    print()
    print("### What is left in the migrated Python files")
    print()
    print(table(["project", "tree", '"cuda"/"nccl"/"cuda:N" literals', "string constants mentioning cuda/nccl",
                 "`torch.cuda.*` references", "files that no longer parse"], left))


if __name__ == "__main__":
    main()
