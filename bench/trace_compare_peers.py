#!/usr/bin/env python3
"""`banjia trace compare` vs msprof-analyze's compare_tools (`msprof-analyze compare -d TARGET -bp
BASELINE`, PyPI msprof-analyze) on torch_npu profiler outputs and Kineto traces: NPU vs NPU, GPU vs
NPU, GPU vs GPU from the fixtures, and a pair of larger Kineto traces synthesised from the fixtures
(bench/trace_synth.py). Gzipped fixtures are unpacked first to `*.pt.trace.json` (msprof-analyze
wants that name for a GPU trace); both tools read the same files. Medians of several runs.

Agreement, per side, with msprof-analyze's OverallMetrics sheet (performance_comparison_result_*.xlsx)
against `banjia trace summary` of the same input (totals over all steps):
- Computing Time vs compute_us; Uncovered Communication Time vs comm_us; Free Time vs idle_us +
  memory_us (msprof-analyze counts copies as free time); E2E Time vs wall_us. On torch_npu data both
  read the profiler's own step breakdown; on Kineto traces msprof-analyze's E2E runs from the first to
  the last kernel, banjia's from the first ProfilerStep's start (so only Computing is compared there);
- the top compare row: the op whose time per step grew most (banjia's first `ops` row; msprof-analyze's
  ApiCompare sheet holds totals, ms with 2 decimals, divided here by each side's step count as banjia
  reports it).

    python bench/trace_compare_peers.py --banjia build-release/src/banjia [--runs 5] [--peer-runs 3]
                                        [--size-mb 100] [--quick]
"""
import gzip
import json
import os
import pathlib
import shutil
import sys
import tempfile

import peerlib
from peerlib import median, rel_diff, run, table

NPU = "ascend/msinsight/text"
GPU = "gpu-h200/traces"
PAIRS = [  # (label, baseline, target)
    ("NPU vs NPU: level1 rank0 vs rank1", f"{NPU}/level1/rank0_ascend_pt", f"{NPU}/level1/rank1_ascend_pt"),
    ("NPU vs NPU: level0 rank0 vs level1 rank0", f"{NPU}/level0/rank0_ascend_pt", f"{NPU}/level1/rank0_ascend_pt"),
    ("GPU vs NPU: resnet50_fp32 vs level1 rank0", f"{GPU}/resnet50_fp32.json.gz", f"{NPU}/level1/rank0_ascend_pt"),
    ("GPU vs GPU: resnet50 fp32 vs bf16 channels_last", f"{GPU}/resnet50_fp32.json.gz",
     f"{GPU}/resnet50_bf16_channels_last.json.gz"),
    ("GPU vs GPU: resnet50 fp32 vs gpt2 sdpa bf16", f"{GPU}/resnet50_fp32.json.gz", f"{GPU}/gpt2_sdpa_bf16.json.gz"),
]
QUICK_PAIRS = [PAIRS[0], PAIRS[2]]
METRICS = [("Computing Time", lambda o: o["compute_us"]), ("Uncovered Communication Time", lambda o: o["comm_us"]),
           ("Free Time", lambda o: o["idle_us"] + o["memory_us"]), ("E2E Time", lambda o: o["wall_us"])]
TOLERANCE = 1e-6


def prepare(rel: str, tmp: pathlib.Path) -> pathlib.Path:
    src = peerlib.FIXTURES / rel
    if src.suffix != ".gz":
        return src
    dst = tmp / (src.name[:-len(".json.gz")] + ".pt.trace.json")
    if not dst.exists():
        with gzip.open(src, "rb") as f, open(dst, "wb") as out:
            shutil.copyfileobj(f, out)
    return dst


def overall_metrics(xlsx: pathlib.Path) -> tuple[dict, dict, tuple]:
    """(baseline metrics ms, target metrics ms, top ApiCompare row (name, base ms, target ms))."""
    r = run([peerlib.PEER_PY, "-c", XLSX_READER, xlsx])
    if not r.ok:
        raise ValueError(f"reading {xlsx.name}: {r.failure()}")
    d = json.loads(r.stdout)
    return d["base"], d["target"], tuple(d["top"]) if d["top"] else None


XLSX_READER = r'''
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
base, target = {}, {}
for row in list(wb["OverallMetrics"].iter_rows(values_only=True))[3:]:
    if row[0] and not str(row[0]).startswith("\t"):
        base[row[0]], target[row[0]] = row[1], row[4]
top = None
if "ApiCompare" in wb.sheetnames:
    rows = [r for r in list(wb["ApiCompare"].iter_rows(values_only=True))[3:]
            if isinstance(r[2], (int, float)) and isinstance(r[6], (int, float))]
    if rows:
        r = max(rows, key=lambda r: r[6] - r[2])
        top = (r[1], r[2], r[6])
print(json.dumps({"base": base, "target": target, "top": top}))
'''


def main() -> None:
    ap = peerlib.argument_parser(__doc__, runs=5, peer_runs=3, quick_help="two fixture pairs", peer="msprof-analyze")
    ap.add_argument("--size-mb", type=float, default=100, help="size of each synthesised trace")
    args = ap.parse_args()
    status = peerlib.peer_status("msprof_analyze")
    ok = status == "ok"
    rss_limit = float(os.environ.get("PEER_RSS_LIMIT_MB") or 0.75 * peerlib.mem_available_mb())
    print(f"msprof-analyze: {'installed' if ok else status}; memory guard {rss_limit:,.0f} MB; load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores.")
    print()
    print("Measured commands: `banjia trace compare BASELINE TARGET --format json -o FILE`; "
          "`msprof-analyze compare -d TARGET -bp BASELINE -o DIR` (its default: every comparison, an xlsx result). "
          "Agreement inputs (not timed): `banjia trace summary INPUT --format json`.")
    print()
    speed, agree_rows = [], []
    with tempfile.TemporaryDirectory(prefix="banjia_trace_compare_peers_") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        pairs = [(label, prepare(b, tmp), prepare(t, tmp)) for label, b, t in (QUICK_PAIRS if args.quick else PAIRS)]
        synth = []
        for name in ("resnet50_fp32", "resnet50_bf16_channels_last"):
            dst = tmp / f"{name}_x.pt.trace.json"
            r = run([sys.executable, peerlib.REPO / "bench" / "trace_synth.py", peerlib.FIXTURES / GPU / f"{name}.json.gz",
                     dst, str(args.size_mb)])
            synth.append(dst if r.ok else None)
        if all(synth):
            pairs.append((f"GPU vs GPU, synthesised: resnet50 fp32 vs bf16, {synth[0].stat().st_size / 1e6:.0f} + "
                          f"{synth[1].stat().st_size / 1e6:.0f} MB", synth[0], synth[1]))
        for label, base, target in pairs:
            totals = {}
            for side, path in (("baseline", base), ("target", target)):
                r = run([args.banjia, "trace", "summary", path, "--format", "json", "-o", tmp / "summary.json"])
                if not r.ok:
                    raise SystemExit(f"banjia trace summary {path}: {r.failure()}")
                totals[side] = json.loads((tmp / "summary.json").read_text())["summary"]["traces"][0]
            b_runs, m_runs, failure, xlsx = [], [], "", None
            for i in range(max(args.runs, args.peer_runs)):
                if i < args.runs:
                    r = run([args.banjia, "trace", "compare", base, target, "--format", "json", "-o", tmp / "compare.json"])
                    if not r.ok:
                        raise SystemExit(f"banjia trace compare {base} {target}: {r.failure()}")
                    b_runs.append(r)
                if ok and i < args.peer_runs and not failure:
                    out = tmp / f"msprof_{len(speed)}_{i}"
                    r = run([peerlib.PEER_PY.parent / "msprof-analyze", "compare", "-d", target, "-bp", base, "-o", out],
                            cwd=tmp, rss_limit_mb=rss_limit, timeout=args.timeout)
                    found = sorted(out.glob("performance_comparison_result_*.xlsx"))
                    if r.ok and found:
                        m_runs.append(r)
                        xlsx = found[-1]
                    else:
                        failure = r.failure() if not r.ok else "no performance_comparison_result_*.xlsx written"
            bm = median([r.wall for r in b_runs])
            compared = json.loads((tmp / "compare.json").read_text())["summary"]
            top_b = compared["ops"][0]
            # banjia compares per step (each side's totals over its own step count); msprof-analyze's
            # ApiCompare holds totals over the whole trace.
            steps = (compared["baseline_steps"] or 1, compared["target_steps"] or 1)
            if not m_runs:
                speed.append((label, f"{bm * 1e3:.1f}", "—", "—", f"{max(r.rss_mb for r in b_runs):.0f} / —",
                              f"msprof-analyze failed: {failure or status}"))
                continue
            mm = median([r.wall for r in m_runs])
            try:
                m_base, m_target, top_m = overall_metrics(xlsx)
            except ValueError as e:
                speed.append((label, f"{bm * 1e3:.1f}", f"{mm:.1f}", f"{mm / bm:.0f}x", "", str(e)))
                continue
            m_growth = top_m[2] / steps[1] - top_m[1] / steps[0] if top_m else 0.0
            top_same = top_m is not None and top_m[0] == top_b["name"] and \
                abs(m_growth - top_b["delta_us"] / 1e3) <= 0.011
            top_text = (f"`{top_b['name']}` +{top_b['delta_us'] / 1e3:.2f} ms/step" +
                        ("" if top_same else f"; msprof-analyze: " +
                         (f"`{top_m[0]}` +{m_growth:.2f} ms/step" if top_m else "no ApiCompare sheet")))
            speed.append((label, f"{bm * 1e3:.1f}", f"{mm:.1f}", f"{mm / bm:.0f}x",
                          f"{max(r.rss_mb for r in b_runs):.0f} / {max(r.rss_mb for r in m_runs):.0f}",
                          top_text + (" (same)" if top_same else " (**differs**)")))
            for side, m in (("baseline", m_base), ("target", m_target)):
                o = totals[side]["overall"]
                npu = totals[side]["format"] == "torch_npu"
                # On Kineto traces msprof-analyze counts the whole-µs slots a kernel touches
                # (range(int(start + 1), int(end + 1))): up to 1 µs apart per kernel from the exact union.
                slack_us = 0.0 if npu else float(o["kernels"])
                cells, agree = [], True
                for metric, value in METRICS:
                    ms, us = m.get(metric), value(o)
                    checked = npu or metric in ("Computing Time", "Uncovered Communication Time")
                    if not isinstance(ms, (int, float)):
                        cells.append(f"— / {us / 1e3:,.3f}")
                        continue
                    close = abs(ms * 1e3 - us) <= TOLERANCE * abs(us) + slack_us
                    agree &= not checked or close
                    cells.append(f"{ms:,.3f} / {us / 1e3:,.3f}" + ("" if checked else " (windows differ)"))
                agree_rows.append((label, f"{side} ({totals[side]['format']})", *cells, "yes" if agree else "**NO**"))
    failed = [r for r in agree_rows if r[-1] != "yes"]
    measured = [row for row in speed if row[2] != "—"]
    if not measured:
        peerlib.glance("`trace compare`", "msprof-analyze compare", speed[-1][0] if speed else "",
                       f"{speed[-1][1]} ms" if speed else "", f"not measured: {status if not ok else speed[-1][5]}",
                       "", "", "")
    else:
        last = measured[-1]
        peerlib.glance("`trace compare`", "msprof-analyze compare", last[0], f"{last[1]} ms", f"{last[2]} s", last[3],
                       f"{last[4]} MB", f"overall metrics: {'yes' if not failed else '**no**'} "
                       f"({len(agree_rows) - len(failed)} of {len(agree_rows)} sides); top row: "
                       f"{sum('(same)' in r[5] for r in measured)} of {len(measured)} pairs the same")
    print(f"### Speed and top compare row (runs: banjia {args.runs}, msprof-analyze {args.peer_runs})")
    print()
    print(table(["pair (baseline vs target)", "banjia median (ms)", "msprof-analyze median (s)",
                 "msprof-analyze / banjia", "peak RSS MB (banjia / msprof-analyze)",
                 "top compare row: largest growth in op time per step (banjia; msprof-analyze ApiCompare)"], speed))
    print()
    print("### Overall metrics, ms (msprof-analyze OverallMetrics / banjia trace summary totals)")
    print()
    print(table(["pair", "side", "Computing", "Uncovered Communication", "Free (+ copies)", "E2E",
                 "agree"], agree_rows))
    print()
    print(f"Agree: the compared metrics within a relative {TOLERANCE:g}; on Kineto traces Computing and Uncovered "
          "Communication only, within 1 µs per kernel (msprof-analyze counts whole-µs slots).")


if __name__ == "__main__":
    main()
