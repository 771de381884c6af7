#!/usr/bin/env python3
"""Writes docs/cli/*.md, one reference page per verb plus banjia.md for the top level, from the binary's
own `--help` text: every command and subcommand's help verbatim in a fenced block, followed by short
notes on option groups that a topic page under docs/ explains (a link there, not a copy).

    python tools/gen_cli_docs.py --banjia build/src/banjia [--out docs/cli]

The help text is the source of truth; tests/e2e/test_cli_docs.py regenerates the pages into a temporary
directory and fails when docs/cli differs, so edit this script (or the CLI), never the pages.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"

# Per verb: the page title and the topic pages that explain it (relative to docs/).
VERBS = {
    "scan": ("Find every CUDA-specific use and say how it migrates", ["scan-migrate.md", "device-values.md"]),
    "migrate": ("Rewrite CUDA code for Ascend NPUs", ["scan-migrate.md", "device-values.md"]),
    "env": ("Ascend environment settings", ["env.md"]),
    "trace": ("Profiler traces on GPU and NPU", ["trace.md", "ops.md"]),
    "compare": ("Per-layer tensor dumps of two runs", ["compare.md"]),
    "bench": ("Recorded runs, with confidence intervals", ["bench.md"]),
}

# Option groups a topic page explains: command path -> [(options, one sentence, (page, heading))].
# Every option named must appear in that command's --help, and every heading in its page.
NOTES: dict[tuple[str, ...], list[tuple[list[str], str, tuple[str, str]]]] = {
    ("scan",): [
        (["--select", "--ignore", "--list-rules"],
         "choose rules by id or category; the catalogue is `data/rules/*.toml`.",
         ("scan-migrate.md", "`banjia scan PATH...`")),
        (["--format"], "the JSON report is a stable interface; SARIF is for code-scanning services.",
         ("scan-migrate.md", "JSON output (stable public interface)")),
    ],
    ("migrate",): [
        (["--output", "--in-place", "--backup-suffix", "--no-backup", "--force"],
         "where the migrated tree goes, and how in-place writes keep backups.",
         ("scan-migrate.md", "`banjia migrate SRC (-o OUT | --in-place)`")),
        (["--target"], "`npu` writes torch_npu code; `accelerator` writes device-agnostic code for GPU and NPU.",
         ("scan-migrate.md", "`--target accelerator`: one codebase for GPU and NPU")),
    ],
    ("env", "check"): [
        (["--type", "--purpose"], "how each file kind is parsed and which settings count as debug-only.",
         ("env.md", "`env check`")),
    ],
    ("env", "explain"): [([], "what an explanation holds.", ("env.md", "`env explain`"))],
    ("env", "template"): [([], "the scenarios and what the script sets.", ("env.md", "`env template`"))],
    ("env", "translate"): [
        (["--target-torch-npu"], "which variables are renamed and which allocator options are dropped.",
         ("env.md", "`env translate`")),
    ],
    ("env", "doctor"): [([], "what is checked and how.", ("env.md", "`env doctor`"))],
    ("trace", "summary"): [
        (["--format", "--table"], "the report's fields and the CSV tables.", ("trace.md", "JSON (`--format json`)")),
        (["--html"], "the HTML report, and the cluster view for a directory of ranks.", ("trace.md", "Cluster view")),
    ],
    ("trace", "compare"): [([], "inputs and definitions shared with `trace summary`.", ("trace.md", "Definitions"))],
    ("trace", "ops"): [
        (["--torch-npu"], "the operator data sets and what each status means.", ("ops.md", "Statuses")),
    ],
    ("compare",): [
        (["--fail-on"], "how each entry's status is decided.", ("compare.md", "Verdicts")),
        (["--format", "--html"], "the report formats.", ("compare.md", "JSON")),
    ],
    ("bench", "compare"): [
        (["--seed", "--resamples", "--batch-size"], "the bootstrap intervals and per-metric verdicts.",
         ("bench.md", "Statistics")),
        (["--fail-on"], "exit codes and the warnings `--fail-on warning` counts.", ("bench.md", "Warnings")),
    ],
}


def help_text(banjia: str, path: tuple[str, ...]) -> str:
    # argv[0] is "banjia" so the Usage line names the command, not where this binary happens to be.
    r = subprocess.run(["banjia", *path, "--help"], executable=banjia, capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise SystemExit(f"gen_cli_docs: `banjia {' '.join(path)} --help` exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout if r.stdout.endswith("\n") else r.stdout + "\n"  # verbatim, blank last lines too


def subcommands(text: str) -> list[str]:
    """Names listed under the help's `Subcommands:` heading, in their order."""
    names, inside = [], False
    for line in text.splitlines():
        if line == "Subcommands:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside and (m := re.match(r"  (\S+)", line)):
            names.append(m.group(1))
    return names


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def link(page: str, heading: str) -> str:
    headings = [l.lstrip("#").strip() for l in (DOCS / page).read_text().splitlines() if l.startswith("#")]
    if heading not in headings:
        raise SystemExit(f"gen_cli_docs: docs/{page} has no heading {heading!r}")
    return f"[{page}: {heading}](../{page}#{anchor(heading)})"


def notes(path: tuple[str, ...], text: str) -> list[str]:
    out = []
    for options, sentence, (page, heading) in NOTES.get(path, []):
        for o in options:
            if not re.search(rf"(^|[ ,]){re.escape(o)}(?![\w-])", text, re.M):
                raise SystemExit(f"gen_cli_docs: `banjia {' '.join(path)} --help` has no option {o}")
        lead = ", ".join(f"`{o}`" for o in options) + ": " + sentence if options else sentence[0].upper() + sentence[1:]
        out += [f"{lead} See {link(page, heading)}.", ""]
    return out


def command_section(banjia: str, path: tuple[str, ...], level: int) -> list[str]:
    text = help_text(banjia, path)
    lines = ["#" * level + f" `banjia {' '.join(path)}`", "", "```text", *text.splitlines(), "```", ""]
    lines += notes(path, text)
    for sub in subcommands(text):
        lines += command_section(banjia, (*path, sub), level + 1)
    return lines


# The output flags every reporting verb shares (src/cli/output_flags.cpp), documented once; each verb's
# help footer points here.
OUTPUT_FLAGS = """\
## Output flags and `--fail-on`

Every verb that writes a report (`scan`, `env check`, `env doctor`, `trace summary`, `trace compare`,
`trace ops`, `compare`, `bench compare`) takes the same flags:

| Flag | Meaning |
|---|---|
| `-f`, `--format FORMAT` | the report's format; each verb lists the formats it writes (`text` by default) |
| `-o`, `--output FILE` | write the report to FILE, atomically (a complete file or none), instead of stdout |
| `--color auto\\|always\\|never` | colour in text output; `auto` colours only a terminal, and not when the environment sets `NO_COLOR` to a non-empty value ([no-color.org](https://no-color.org)) nor when `-o` names a file (`bench compare` writes no colour and has no `--color`) |
| `--html FILE` | also write a self-contained HTML report (`trace summary`, `trace compare`, `trace ops`, `compare`, `bench compare`) |
| `--fail-on error\\|warning\\|info\\|none` | exit `1` when a result reaches that severity; `none` never does |

What reaches which severity, per verb:

| Verb | error | warning | info | Default |
|---|---|---|---|---|
| `scan`, `env check`, `env doctor`, `trace summary` | a finding of severity error | a finding of severity warning | a finding of severity info | `error` (`trace`: `none`) |
| `trace compare`, `trace ops` | (no findings) | | | `none` |
| `compare` | an entry whose status is `fail` or `error` | an entry whose status is `warn` | | `error` |
| `bench compare` | a run significantly slower than the baseline | any warning the table prints | | `none` |

A level counts everything at it and above: `--fail-on warning` also fails on errors. Deprecated spellings
are accepted and print one line on stderr naming the level they stand for: `compare --fail-on fail` is
`error`, `compare --fail-on warn` is `warning`, `bench compare --fail-on slower` is `error`.

""".splitlines()

HEADER = "<!-- Generated by tools/gen_cli_docs.py from `banjia --help`; do not edit by hand. -->"


def verb_page(banjia: str, verb: str) -> str:
    title, topics = VERBS[verb]
    lines = [HEADER, "", f"# `banjia {verb}`: {title}", "",
             "The exact `--help` text of the command and each of its subcommands. Explained in "
             + ", ".join(f"[{t}](../{t})" for t in topics) + ".", ""]
    body = command_section(banjia, (verb,), 2)
    return "\n".join(lines + body).rstrip("\n") + "\n"


def top_page(banjia: str) -> str:
    text = help_text(banjia, ())
    verbs = subcommands(text)
    unknown = [v for v in verbs if v not in VERBS]
    if unknown or set(VERBS) - set(verbs):
        raise SystemExit(f"gen_cli_docs: verbs in --help {verbs} differ from VERBS {list(VERBS)}")
    lines = [HEADER, "", "# `banjia`: command reference", "",
             "One page per verb, each holding the exact `--help` text of every subcommand:", ""]
    lines += [f"- [`banjia {v}`]({v}.md): {VERBS[v][0]}" for v in verbs]
    lines += ["", "Exit codes, for every verb: `0` ok; `1` findings at or above `--fail-on` (or a check or "
              "verdict failed); `2` usage or input error, with one line on stderr naming the file.", ""]
    lines += OUTPUT_FLAGS
    lines += ["## `banjia`", "", "```text", *text.splitlines(), "```"]
    return "\n".join(lines) + "\n"


def generate(banjia: str) -> dict[str, str]:
    pages = {"banjia.md": top_page(banjia)}
    for verb in VERBS:
        pages[f"{verb}.md"] = verb_page(banjia, verb)
    return pages


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--banjia", required=True, help="the banjia binary to document")
    ap.add_argument("--out", default=str(DOCS / "cli"), help="directory for the pages (default: docs/cli)")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pages = generate(args.banjia)
    for name, text in pages.items():
        (out / name).write_text(text)
    for stale in sorted(set(p.name for p in out.glob("*.md")) - set(pages)):
        (out / stale).unlink()
    print(f"wrote {len(pages)} pages to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
