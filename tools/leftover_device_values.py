#!/usr/bin/env python3
"""Counts the CUDA device and NCCL backend values left in a migrated tree, and which of them the
migrate report lists for manual work.

An independent check of `banjia migrate` (Python's own `ast`, not banjia's front-end). A value is a
string constant in code whose whole value is a CUDA device ("cuda", "cuda:", "cuda:0", "cuda:{}", "cuda:%d",
f"cuda:{rank}") or the NCCL backend ("nccl"); docstrings and the text of messages (print, logging,
warnings, exceptions, assert) are not code values and are not counted.

    tools/leftover_device_values.py SOURCE_DIR MIGRATED_DIR REPORT.json [--list]

Prints one line per tree: values left, of them reported (a manual item of the report on the same
line of the same file: report lines are lines of SOURCE_DIR, mapped to the migrated file with
difflib), and unreported; --list names each unreported value as file:line: text.
Exit status 0; 2 on bad input.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import sys
from pathlib import Path

DEVICE = re.compile(r"cuda(:(\d+|\{\}|%d|%s|%i|\{0\})?)?")
BACKEND = {"nccl", "NCCL"}
MESSAGE_CALLS = {"print", "debug", "info", "warning", "warn", "error", "critical", "exception", "log", "fatal"}
SKIP_DIRS = {".git", "__pycache__", "build", "dist", "node_modules", ".venv", "venv"}


def is_device_value(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return DEVICE.fullmatch(node.value) is not None or node.value in BACKEND
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        return (isinstance(first, ast.Constant) and first.value == "cuda:" and len(node.values) == 2
                and isinstance(node.values[1], ast.FormattedValue))
    return False


def message_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes that are docstrings or message text (not code values)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr)):
            skip.add(id(node.value))
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in MESSAGE_CALLS:
                for a in node.args:
                    skip.update(id(n) for n in ast.walk(a))
        elif isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(id(n) for n in ast.walk(node.exc))
        elif isinstance(node, ast.Assert) and node.msg is not None:
            skip.update(id(n) for n in ast.walk(node.msg))
    return skip


def values_in(path: Path) -> list[tuple[int, str]]:
    try:
        source = path.read_bytes()
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return []
    skip = message_nodes(tree)
    out: list[tuple[int, str]] = []
    seen: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            seen.update(id(v) for v in node.values)  # the parts of an f-string are not values
        if id(node) in seen or id(node) in skip or not is_device_value(node):
            continue
        out.append((node.lineno, ast.get_source_segment(source.decode("utf-8", "replace"), node) or "?"))
    return out


def source_lines(source: Path, migrated: Path) -> dict[int, int]:
    """Line of `migrated` (1-based) -> line of `source` it came from, for unchanged and edited lines."""
    try:
        a = source.read_text(errors="replace").splitlines()
        b = migrated.read_text(errors="replace").splitlines()
    except OSError:
        return {}
    out: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("equal", "replace") and i2 - i1 == j2 - j1:
            out.update({j1 + k + 1: i1 + k + 1 for k in range(j2 - j1)})
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", type=Path)
    p.add_argument("tree", type=Path)
    p.add_argument("report", type=Path)
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    for d in (args.source, args.tree):
        if not d.is_dir():
            print(f"{d}: not a directory", file=sys.stderr)
            return 2
    try:
        report = json.loads(args.report.read_text())
    except (OSError, ValueError) as e:
        print(f"{args.report}: {e}", file=sys.stderr)
        return 2
    reported = {(m["file"], m["line"]) for m in report.get("manual", [])}
    left, unreported = 0, []
    for path in sorted(args.tree.rglob("*.py")):
        if any(part in SKIP_DIRS for part in path.relative_to(args.tree).parts):
            continue
        rel = path.relative_to(args.tree).as_posix()
        found = values_in(path)
        lines = source_lines(args.source / rel, path) if found else {}
        for line, text in found:
            left += 1
            if (rel, lines.get(line, -1)) not in reported:
                unreported.append(f"{rel}:{line}: {text}")
    print(f"{args.tree}: {left} device/backend values left, {left - len(unreported)} reported, {len(unreported)} unreported")
    if args.list:
        for u in unreported:
            print("  " + u)
    return 0


if __name__ == "__main__":
    sys.exit(main())
