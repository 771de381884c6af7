#!/usr/bin/env python3
"""`banjia scan` and `banjia migrate` on modern LLM code bases: the corpus of
bench/corpus.tsv, each repository at its pinned commit (bench/corpus_setup.sh puts them under
$BENCH_CACHE/corpus). Per repository: the CUDA uses scan finds and how they migrate, the modern sites
an independent oracle finds (bench/modern_sites.py) that have no scan finding on their line, and the
automatic edits of `migrate` (both targets) that an independent oracle judges harmful
(bench/harmful_edits.py); plus timings. Markdown on stdout, every number in a JSON file.

    python bench/modern_corpus.py --banjia build-release/src/banjia [--runs 3] [--quick] [--json FILE]
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Optional, Sequence

import harmful_edits
import modern_sites
from modern_sites import Site

REPO = pathlib.Path(__file__).resolve().parent.parent
CACHE = pathlib.Path(os.environ.get("BENCH_CACHE") or
                     pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "banjia-bench")
TARGETS = ("npu", "accelerator")


@dataclasses.dataclass(frozen=True)
class CorpusEntry:
    name: str
    github: str
    commit: str
    quick: bool
    kind: str


# Kernel libraries whose imports migrate redirects to a shim it writes (data/shims); their import and
# call sites are counted again in the migrated tree, by the same oracle.
THIRD_PARTY = ("flash_attn", "xformers", "apex")
SHIM_FILES = {p.name for p in (pathlib.Path(__file__).resolve().parent.parent / "data" / "shims").glob("*.py")}


def third_party_sites(root: pathlib.Path) -> collections.Counter[str]:
    """Import and call sites of THIRD_PARTY families under root, per family; banjia's shims not counted."""
    return collections.Counter(s.family for s in modern_sites.find_sites(root)
                               if s.family in THIRD_PARTY and s.kind in ("import", "call")
                               and pathlib.PurePosixPath(s.file).name not in SHIM_FILES)


def read_corpus(path: pathlib.Path) -> list[CorpusEntry]:
    entries = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, github, commit, quick, kind = line.split("\t")
            entries.append(CorpusEntry(name, github, commit, quick == "1", kind))
    return entries


def timed(cmd: Sequence[str], runs: int, before: Optional[Any] = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Median wall time of `runs` runs of cmd (before() runs ahead of each, untimed), and the last run."""
    walls = []
    result: Optional[subprocess.CompletedProcess[str]] = None
    for _ in range(max(1, runs)):
        if before:
            before()
        t0 = time.perf_counter()
        result = subprocess.run(list(cmd), capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if result.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)}: exit {result.returncode}: {result.stderr.strip()[-300:]}")
    assert result is not None
    return statistics.median(walls), result


def finding_lines(scan: dict[str, Any], root: pathlib.Path) -> dict[str, list[tuple[int, int]]]:
    """File (relative to root) -> the line spans of its findings."""
    spans: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
    for f in scan["findings"]:
        rel = pathlib.Path(os.path.relpath(f["file"], root)).as_posix()
        spans[rel].append((f["line"], f.get("end_line") or f["line"]))
    return spans


def has_finding(site: Site, spans: dict[str, list[tuple[int, int]]]) -> bool:
    """A finding of the site's file whose lines meet the site's (one line, or an import statement's); for a
    call, also one on the import statement that bound the name it calls through (a finding there, such as
    a redirect to a shim, speaks for every use of the names the import binds)."""
    def meets(first: int, last: int) -> bool:
        return any(a <= last and first <= b for a, b in spans.get(site.file, ()))
    return meets(site.line, site.end_line) or (site.import_span != (0, 0) and meets(*site.import_span))


def measure_repo(entry: CorpusEntry, src: pathlib.Path, banjia: str, runs: int, tmp: pathlib.Path) -> dict[str, Any]:
    scan_json = tmp / "scan.json"
    scan_s, _ = timed([banjia, "scan", str(src), "--format", "json", "-o", str(scan_json), "--fail-on", "none"], runs)
    scan = json.loads(scan_json.read_text())
    t0 = time.perf_counter()
    sites = modern_sites.find_sites(src)
    sites_s = time.perf_counter() - t0
    spans = finding_lines(scan, src)
    missing = [s for s in sites if not has_finding(s, spans)]
    by_family: dict[str, dict[str, int]] = {}
    for s in sites:
        counts = by_family.setdefault(s.family, {"sites": 0, "without_finding": 0})
        counts["sites"] += 1
        counts["without_finding"] += s in missing
    migrate: dict[str, Any] = {}
    timings: dict[str, float] = {"scan_s": round(scan_s, 4), "sites_oracle_s": round(sites_s, 3)}
    for target in TARGETS:
        out, report = tmp / f"out-{target}", tmp / f"report-{target}.json"
        wall, _ = timed([banjia, "migrate", str(src), "-o", str(out), "--report", str(report), "--target", target],
                        runs, before=lambda: shutil.rmtree(out, ignore_errors=True))
        summary = json.loads(report.read_text())["summary"]
        t0 = time.perf_counter()
        harmful, changed = harmful_edits.tree_harm(src, out)
        if target == "npu":
            third_party = {"before": dict(third_party_sites(src)), "after": dict(third_party_sites(out))}
        timings[f"migrate_{target}_s"] = round(wall, 4)
        timings[f"harm_oracle_{target}_s"] = round(time.perf_counter() - t0, 3)
        migrate[target] = {
            "report": {k: summary[k] for k in ("files_examined", "files_changed", "edits", "left_for_manual_work", "errors")},
            "python_files_changed": len(changed),
            "harmful_lines": len({(h.file, h.line) for h in harmful}),
            "harmful_by_check": dict(sorted(collections.Counter(h.check for h in harmful).items())),
            "harmful": [dataclasses.asdict(h) for h in harmful],
        }
        shutil.rmtree(out, ignore_errors=True)
    s = scan["summary"]
    return {
        "name": entry.name, "github": entry.github, "commit": entry.commit, "kind": entry.kind,
        "python_files": s["files"]["python"],
        "scan": {"total": s["total"], "automatic_percent": round(float(s["automatic_percent"]), 1),
                 "by_fix": {k: s["by_fix"].get(k, 0) for k in ("automatic", "manual", "unsupported", "advisory")}},
        "sites": {"total": len(sites), "without_finding": len(missing), "by_family": dict(sorted(by_family.items()))},
        "sites_without_finding": [dataclasses.asdict(m) for m in missing],
        "migrate": migrate,
        "third_party": third_party,
        "timings": timings,
    }


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "—"


def render(results: list[dict[str, Any]], unavailable: list[tuple[CorpusEntry, str]], args: argparse.Namespace,
           version: str) -> None:
    print(f"banjia {version}; {len(results)} repositories measured"
          f"{' (--quick: the repositories marked quick in bench/corpus.tsv)' if args.quick else ''}; "
          f"timings are medians of {args.runs} run(s) on {os.cpu_count()} cores, load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    print()
    print("Measured commands, per repository at its pinned commit: `banjia scan SRC --format json`, "
          "`banjia migrate SRC -o OUT --report R.json --target npu|accelerator` (each writes a migrated copy). "
          "Modern sites: bench/modern_sites.py (ast and regular expressions, no banjia); a site has a finding when "
          "a scan finding of the same file spans its line (any line of a multi-line import statement), or, for a call, the "
          "import statement that bound the name it calls through. Harmful "
          "automatic edits: bench/harmful_edits.py over the original and the migrated tree (difflib and ast, not "
          "banjia's report), counted as distinct lines.")
    print()
    rows: list[Sequence[object]] = []
    tot: collections.Counter[str] = collections.Counter()
    for r in results:
        fix = r["scan"]["by_fix"]
        harm = {t: r["migrate"][t]["harmful_lines"] for t in TARGETS}
        tm = r["timings"]
        rows.append((f"{r['github']} @ {r['commit'][:10]}", r["python_files"], r["scan"]["total"],
                     f"{r['scan']['automatic_percent']:.1f}", fix["manual"], fix["unsupported"], fix["advisory"],
                     r["sites"]["total"], r["sites"]["without_finding"], f"{harm['npu']} / {harm['accelerator']}",
                     f"{tm['scan_s'] * 1e3:.0f}", f"{tm['migrate_npu_s'] * 1e3:.0f} / {tm['migrate_accelerator_s'] * 1e3:.0f}"))
        tot.update({"py": r["python_files"], "total": r["scan"]["total"], **fix, "sites": r["sites"]["total"],
                    "without": r["sites"]["without_finding"], "harm_npu": harm["npu"], "harm_acc": harm["accelerator"]})
    for entry, why in unavailable:
        rows.append((f"{entry.github} @ {entry.commit[:10]}", f"not available: {why}", *[""] * 10))
    rows.append(("**all**", tot["py"], tot["total"], pct(tot["automatic"], tot["total"]), tot["manual"], tot["unsupported"],
                 tot["advisory"], tot["sites"], tot["without"], f"{tot['harm_npu']} / {tot['harm_acc']}", "", ""))
    print("### Per repository")
    print()
    print(table(["repository @ commit", ".py files", "CUDA uses found", "automatic %", "manual", "unsupported", "advisory",
                 "modern sites", "modern sites without a finding (goal 0)",
                 "harmful automatic edits, npu / accelerator (goal 0)", "scan ms", "migrate ms, npu / accelerator"], rows))
    print()
    fam_rows = []
    for fam in modern_sites.FAMILIES:
        sites = sum(r["sites"]["by_family"].get(fam.name, {}).get("sites", 0) for r in results)
        missing = [s for r in results for s in r["sites_without_finding"] if s["family"] == fam.name]
        repos = sorted({r["name"] for r in results if fam.name in r["sites"]["by_family"]})
        kinds = collections.Counter(s["kind"] for s in missing)
        fam_rows.append((f"`{fam.name}`: {fam.title}", sites, len(missing), pct(len(missing), sites),
                         ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "—", ", ".join(repos) or "—"))
    print("### Per family of modern sites")
    print()
    print(table(["family", "sites", "without a finding", "without, %", "without a finding, by kind", "repositories"], fam_rows))
    print()
    render_third_party(results)
    render_details(results, args.details)


def render_third_party(results: list[dict[str, Any]]) -> None:
    rows: list[Sequence[object]] = []
    for fam in THIRD_PARTY:
        before = sum(r["third_party"]["before"].get(fam, 0) for r in results)
        after = sum(r["third_party"]["after"].get(fam, 0) for r in results)
        repos = ", ".join(f"{r['name']} {r['third_party']['after'].get(fam, 0)}/{r['third_party']['before'][fam]}"
                          for r in results if r["third_party"]["before"].get(fam))
        rows.append((f"`{fam}`", before, before - after, pct(before - after, before), after, repos or "—"))
    print("### Third-party kernel sites migrated automatically (target npu)")
    print()
    print("Import and call sites of each library (bench/modern_sites.py), counted in the original tree and again in "
          "the tree `banjia migrate -o OUT` wrote, banjia's shim modules left out: a site migrated is one that no "
          "longer reaches the library (its import now names the shim). `attn_implementation` strings are not counted "
          "here (advisory: transformers maps them on the NPU).")
    print()
    print(table(["library", "import and call sites", "migrated automatically", "automatic %", "left",
                 "left / sites, per repository"], rows))
    print()


def render_details(results: list[dict[str, Any]], limit: int) -> None:
    print("### Harmful automatic edits, each")
    print()
    for target in TARGETS:
        edits = [(r["name"], h) for r in results for h in r["migrate"][target]["harmful"]]
        checks = collections.Counter(h["check"] for _, h in edits)
        print(f"<details><summary>--target {target}: {len(edits)} findings of the oracle "
              f"({', '.join(f'{c} {n}' for c, n in sorted(checks.items())) or 'none'})</summary>")
        print()
        for name, h in edits:
            before = h["before"].replace("`", "'")
            after = h["after"].replace("`", "'")
            print(f"- `{name}/{h['file']}:{h['line']}` **{h['check']}**: {h['reason']}; `{before}` → `{after}`")
        print()
        print("</details>")
        print()
    print(f"### Modern sites without a finding (at most {limit} a family here; all of them in the JSON)")
    print()
    for fam in modern_sites.FAMILIES:
        missing = [(r["name"], s) for r in results for s in r["sites_without_finding"] if s["family"] == fam.name]
        if not missing:
            continue
        print(f"<details><summary><code>{fam.name}</code>: {len(missing)}</summary>")
        print()
        for name, s in missing[:limit]:
            print(f"- `{name}/{s['file']}:{s['line']}` ({s['kind']}) `{s['what']}`")
        if len(missing) > limit:
            print(f"- ... and {len(missing) - limit} more")
        print()
        print("</details>")
        print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--banjia", default=str(REPO / "build-release" / "src" / "banjia"))
    ap.add_argument("--runs", type=int, default=3, help="timed runs of each command (the median is reported)")
    ap.add_argument("--quick", action="store_true", help="only the repositories marked quick in bench/corpus.tsv")
    ap.add_argument("--only", action="append", default=[], help="only this repository (by name; repeatable)")
    ap.add_argument("--corpus", type=pathlib.Path, default=REPO / "bench" / "corpus.tsv")
    ap.add_argument("--json", type=pathlib.Path, default=REPO / "bench" / "results" / "modern_corpus.json")
    ap.add_argument("--details", type=int, default=15, help="sites without a finding listed per family")
    args = ap.parse_args()
    version = subprocess.run([args.banjia, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    entries = [e for e in read_corpus(args.corpus)
               if (not args.quick or e.quick) and (not args.only or e.name in args.only)]
    results, unavailable = [], []
    for entry in entries:
        src = CACHE / "corpus" / entry.name
        stamp = src / ".source_commit"
        if not stamp.is_file() or stamp.read_text().strip() != entry.commit:
            status = CACHE / "status" / f"corpus_{entry.name}"
            why = status.read_text().strip() if status.is_file() else "bench/corpus_setup.sh has not run"
            unavailable.append((entry, why if why != "ok" else "a different commit is checked out"))
            continue
        print(f"modern_corpus: {entry.name}", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="banjia_corpus_") as tmp:
            results.append(measure_repo(entry, src, args.banjia, args.runs, pathlib.Path(tmp)))
    render(results, unavailable, args, version)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    document = {"banjia": version, "quick": args.quick, "runs": args.runs, "repositories": results,
                "unavailable": [{"name": e.name, "github": e.github, "commit": e.commit, "why": w} for e, w in unavailable]}
    args.json.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"modern_corpus: wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
