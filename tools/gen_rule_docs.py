#!/usr/bin/env python3
"""Writes docs/rules/: one page per scan rule (`banjia scan --explain RULE`) and README.md, the index;
trace/, one page per advisor rule (`banjia trace summary --explain RULE`), and env/, one page per rule
across variables (`banjia env check --explain RULE`), each with its README.md index.

The pages are the binary's own rendering of data/rules/*.toml, data/trace/advisors.toml and
data/env/cross_rules.toml, so they say what the binary knows; tests/e2e/test_rule_docs.py regenerates
them and fails when the committed ones differ.

    tools/gen_rule_docs.py [--banjia build/src/banjia] [OUT_DIR (default docs/rules)]
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tomllib

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
    lines += ["", "The other rule families have their own pages: [trace advisors](trace/README.md) and",
              "[rules across environment variables](env/README.md)."]
    return "\n".join(lines) + "\n"


def toml_rules(relative, key):
    return tomllib.loads((REPO / relative).read_text(encoding="utf-8"))[key]


# Each further family: its data, the command that explains a rule, and the words of its index.
FAMILIES = {
    "trace": {"data": ("data/trace/advisors.toml", "rule"), "explain": ("trace", "summary", "--explain"),
              "title": "Trace advisors", "summary": "message",
              "intro": "Every advisor rule of `banjia trace summary`, one page each, generated from\n"
                       "`data/trace/advisors.toml` by `tools/gen_rule_docs.py` (each page is\n"
                       "`banjia trace summary --explain RULE`)."},
    "env": {"data": ("data/env/cross_rules.toml", "cross_rule"), "explain": ("env", "check", "--explain"),
            "title": "Rules across environment variables", "summary": "summary",
            "intro": "Every rule across variables of `banjia env check`, one page each, generated from\n"
                     "`data/env/cross_rules.toml` by `tools/gen_rule_docs.py` (each page is\n"
                     "`banjia env check --explain RULE`)."},
}


def family_pages(binary, family):
    f = FAMILIES[family]
    rules = toml_rules(*f["data"])
    out = {f"{family}/{r['id']}.md": banjia(binary, *f["explain"], r["id"]) for r in rules}
    lines = [f"# {f['title']}", "", f["intro"], "", "| Rule | Severity | Summary |", "|---|---|---|"]
    for r in rules:
        lines.append(f"| [{r['id']}]({r['id']}.md) | `{r['severity']}` | {table_cell(r[f['summary']])} |")
    out[f"{family}/README.md"] = "\n".join(lines) + "\n"
    return out


def pages(binary):
    """{file name: content} of docs/rules as `binary` renders it."""
    rules = json.loads(banjia(binary, "scan", "--list-rules", "--format", "json"))
    out = {f"{r['id']}.md": banjia(binary, "scan", "--explain", r["id"]) for r in rules}
    out["README.md"] = index_page(rules)
    for family in FAMILIES:
        out.update(family_pages(binary, family))
    return out


def write(binary, out_dir):
    wanted = pages(binary)
    for family in ("", *FAMILIES):
        (out_dir / family).mkdir(parents=True, exist_ok=True)
        for stale in (out_dir / family).glob("*.md"):
            if stale.relative_to(out_dir).as_posix() not in wanted:
                stale.unlink()
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
