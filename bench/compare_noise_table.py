"""The noise-and-bugs table of docs/design/compare.md: the tiny GPT-2 of tests/e2e/gpt2_cases.py
captured in float32 (the reference) and as each noise-only or bugged pair, in both capture modes,
each pair compared with `banjia compare -f json` against the reference. Prints the Markdown table.

    PYTHONPATH=python .venv/bin/python bench/compare_noise_table.py --banjia build/src/banjia
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

# (name, capture keywords) of every pair at the small size; the larger sizes repeat a few.
BUGS = ("attn_scale", "attn_scale_subtle", "grad_scale", "ln_eps", "ln_eps_subtle", "positions_shifted",
        "residual_doubled", "residual_dropped")
NOISE: List[Tuple[str, Dict[str, Any]]] = [
    ("bf16", {"precision": "bfloat16"}), ("bf16_splitk", {"precision": "bfloat16", "summation": "split_k"}),
    ("fp16", {"precision": "float16"}), ("linear", {"summation": "linear"}), ("mm_high", {"matmul": "high"}),
    ("mm_medium", {"matmul": "medium"}), ("splitk", {"summation": "split_k"}), ("threads1", {"threads": 1}),
]
SMALL = NOISE + [(f"{bug}_{p}", {"precision": p, "bug": bug}) for bug in BUGS for p in ("bfloat16", "float16")]
WIDE = [n for n in NOISE if n[0] in ("bf16", "bf16_splitk", "fp16", "splitk", "threads1")] + [
    ("grad_scale_bfloat16", {"precision": "bfloat16", "bug": "grad_scale"}),
    ("ln_eps_subtle_bfloat16", {"precision": "bfloat16", "bug": "ln_eps_subtle"})]
LONG = [n for n in NOISE if n[0] in ("bf16", "fp16", "splitk", "threads1")]
SIZES = [("64x32", {}, SMALL), ("512x256", {"width": 512, "seq": 256}, WIDE),
         ("64x1024", {"seq": 1024, "layers": 2}, LONG)]


def cell(banjia: str, a: Path, b: Path) -> str:
    p = subprocess.run([banjia, "compare", str(a), str(b), "-f", "json"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return f"error ({p.stderr.strip()[:60]})"
    out = json.loads(p.stdout)
    order = ["error", "fail", "warn", "pass"]
    worst = min((e["status"] for e in out["entries"]), key=lambda s: order.index(s) if s in order else 9)
    ratio = max((e["noise"]["ratio"] for e in out["entries"] if e.get("noise")), default=0.0)
    s = out["suspect"]
    where = f"; {s['module']} {s['phase'][:3]}" if s and worst == "fail" else ""
    return f"{worst} (max ratio {ratio:.2g}{where})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--banjia", default=str(ROOT / "build" / "src" / "banjia"))
    ap.add_argument("--sizes", default="64x32,512x256,64x1024", help="comma-separated subset of the sizes")
    args = ap.parse_args()
    import gpt2_cases as g

    wanted = set(args.sizes.split(","))
    print("| size | pair (A against float32) | tensors | stats |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for size, shape, pairs in SIZES:
            if size not in wanted:
                continue
            refs = {m: g.capture_gpt2(base / f"{size}_fp32_{m}", mode=m, **shape) for m in ("tensors", "stats")}
            for name, kw in pairs:
                cells = [cell(args.banjia, g.capture_gpt2(base / f"{size}_{name}_{m}", mode=m, **shape, **kw), refs[m])
                         for m in ("tensors", "stats")]
                print(f"| {size} | {name} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
