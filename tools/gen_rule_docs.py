#!/usr/bin/env python3
"""Writes docs/rules/: one page per scan rule (`banjia scan --explain RULE`) and README.md, the index.

The pages are the binary's own rendering of data/rules/*.toml, so they say what the binary knows;
tests/e2e/test_rule_docs.py regenerates them and fails when the committed ones differ.

    tools/gen_rule_docs.py [--banjia build/src/banjia] [OUT_DIR (default docs/rules)]
"""
import argparse
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent


def banjia(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def table_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def index_page(rules):
    lines = [
        "# Scan rules",
        "",
        "Every rule `banjia scan` reports and `banjia migrate` applies, one page each, generated from",
        "`data/rules/*.toml` by `tools/gen_rule_docs.py` (each page is `banjia scan --explain RULE`).",
        "",
        "| Rule | Category | Fix | Summary |",
        "|---|---|---|---|",
    ]
    for r in rules:
        summary = r["summary"] or r["message"]
        lines.append(f"| [{r['id']}]({r['id']}.md) | `{r['category']}` | `{r['fix']}` | {table_cell(summary)} |")
    return "\n".join(lines) + "\n"


def pages(binary):
    """{file name: content} of docs/rules as `binary` renders it."""
    rules = json.loads(banjia(binary, "scan", "--list-rules", "--format", "json"))
    out = {f"{r['id']}.md": banjia(binary, "scan", "--explain", r["id"]) for r in rules}
    out["README.md"] = index_page(rules)
    return out


def write(binary, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = pages(binary)
    for stale in set(p.name for p in out_dir.glob("*.md")) - set(wanted):
        (out_dir / stale).unlink()
    for name, text in wanted.items():
        (out_dir / name).write_text(text, encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--banjia", default=str(REPO / "build" / "src" / "banjia"), help="the banjia binary")
    ap.add_argument("out_dir", nargs="?", default=str(REPO / "docs" / "rules"))
    a = ap.parse_args()
    try:
        write(a.banjia, pathlib.Path(a.out_dir))
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"gen_rule_docs: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
