#!/usr/bin/env python3
"""Line-by-line comparison of two migrations of one tree: banjia's and msFmkTransplt's.

    tools/compare_with_msft.py SOURCE BANJIA_OUT MSFT_OUT [--show N]

For every line of every Python file in SOURCE, finds what each tool made of it (difflib against the
original; inserted import lines are ignored) and counts the lines each tool changed: the same way,
differently, or only one of them. --show prints up to N examples per kind. Exit status 0; 2 on bad input.
"""
from __future__ import annotations

import argparse
import difflib
import sys
from collections import defaultdict
from pathlib import Path


def mapped(orig: list[str], new: list[str]) -> dict[int, str]:
    """Original line index -> the line it became (only for lines that were kept or replaced 1:1)."""
    out: dict[int, str] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, orig, new, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            out.update({i1 + k: new[j1 + k] for k in range(i2 - i1)})
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", type=Path)
    p.add_argument("banjia", type=Path)
    p.add_argument("msft", type=Path)
    p.add_argument("--show", type=int, default=0)
    args = p.parse_args()
    for d in (args.source, args.banjia, args.msft):
        if not d.is_dir():
            print(f"{d}: not a directory", file=sys.stderr)
            return 2
    kinds: dict[str, list[str]] = defaultdict(list)
    for src in sorted(args.source.rglob("*.py")):
        rel = src.relative_to(args.source)
        if ".git" in rel.parts:
            continue
        try:
            orig = src.read_text(errors="replace").splitlines()
            b = mapped(orig, (args.banjia / rel).read_text(errors="replace").splitlines())
            m = mapped(orig, (args.msft / rel).read_text(errors="replace").splitlines())
        except OSError:
            continue
        for i, line in enumerate(orig):
            bl, ml = b.get(i, line), m.get(i, line)
            if bl == line and ml == line:
                continue
            kind = ("same" if bl == ml else "different") if bl != line and ml != line else \
                   ("banjia only" if bl != line else "msFmkTransplt only")
            kinds[kind].append(f"{rel}:{i + 1}\n    original: {line.strip()}\n    banjia:   {bl.strip()}\n    msft:     {ml.strip()}")
    for kind in ("same", "different", "banjia only", "msFmkTransplt only"):
        print(f"{kind}: {len(kinds[kind])} lines")
        for ex in kinds[kind][: args.show]:
            print("  " + ex)
    return 0


if __name__ == "__main__":
    sys.exit(main())
