#!/usr/bin/env python3
"""`banjia trace summary` vs HolisticTraceAnalysis (HTA) on the same Kineto traces: a ~1 GB trace
synthesised from a fixture (bench/trace_synth.py) and the real fixture traces. Medians of several
runs, the ratio of medians, peak RSS, and whether HTA's idle/compute split agrees with banjia's.

HTA runs as its documentation shows (TraceAnalysis over a directory, then get_temporal_breakdown
and get_gpu_kernel_breakdown), with two settings that make it measure what banjia measures:
`include_last_profiler_step=True` (by default HTA drops the kernels launched in the last
ProfilerStep; banjia counts every step) and HTA_DISABLE_NS_ROUNDING=1 (by default HTA rounds each
event's start up and end down to whole microseconds, ~1 µs less per kernel). What is compared:
- compute: union of compute-kernel intervals (HTA compute_time, banjia overall compute_us);
- non-compute busy time: HTA non_compute_time vs banjia comm_us + memory_us;
- idle is shown, not compared: HTA counts it from the first kernel's start to the last kernel's end,
  banjia from the first ProfilerStep's start to the end of the last step's device work.

    python bench/trace_peers.py --banjia build-release/src/banjia [--size-mb 1000] [--runs 5]
                                [--peer-runs 3] [--big-peer-runs 1] [--quick]
"""
import json
import os
import pathlib
import sys
import tempfile

import peerlib
from peerlib import median, rel_diff, run, table

FIXTURE_TRACES = [
    "gpu-h200/traces/resnet50_fp32.json.gz", "gpu-h200/traces/resnet50_bf16_channels_last.json.gz",
    "gpu-h200/traces/gpt2_sdpa_bf16.json.gz",
    "gpu-h200/traces/antipattern_small_matmuls_slow.json.gz", "gpu-h200/traces/antipattern_small_matmuls_fixed.json.gz",
    "gpu-h200/traces/antipattern_conv_in_loop_slow.json.gz", "gpu-h200/traces/antipattern_conv_in_loop_fixed.json.gz",
    "gpu-h200/traces/antipattern_host_device_sync_slow.json.gz",
    "gpu-h200/traces/antipattern_host_device_sync_fixed.json.gz",
    "kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
]
QUICK_TRACES = FIXTURE_TRACES[:1] + FIXTURE_TRACES[-1:]

HTA_SCRIPT = r'''
import json, sys
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
temporal = a.get_temporal_breakdown(visualize=False)
kernel_types, _ = a.get_gpu_kernel_breakdown(visualize=False)
print("HTA_RESULT " + json.dumps({"temporal": temporal.to_dict("records"),
                                  "kernel_types": kernel_types.to_dict("records")}, default=float))
'''
TOLERANCE = 1e-6  # relative: both sum the same float intervals, banjia in integer ns


def hta_result(r: peerlib.Run) -> dict:
    for line in r.stdout.splitlines():
        if line.startswith("HTA_RESULT "):
            return json.loads(line[len("HTA_RESULT "):])
    raise ValueError("no HTA_RESULT line")


def measure_pair(trace: pathlib.Path, banjia: str, runs: int, peer_runs: int, tmp: pathlib.Path,
                 hta_ok: bool, rss_limit: float, timeout: float):
    """Interleaved rounds of banjia and HTA on `trace`; returns (banjia runs, HTA runs, banjia
    JSON, HTA result, HTA failure)."""
    hta_dir = tmp / ("hta_" + trace.name.replace(".", "_"))
    hta_dir.mkdir(exist_ok=True)
    link = hta_dir / trace.name
    if not link.exists():
        link.symlink_to(trace.resolve())
    script = tmp / "hta_breakdown.py"
    script.write_text(HTA_SCRIPT)
    out = tmp / "banjia_summary.json"
    b_runs, h_runs, failure = [], [], ""
    for i in range(max(runs, peer_runs)):
        if i < runs:
            r = run([banjia, "trace", "summary", trace, "--format", "json", "-o", out])
            if not r.ok:
                raise SystemExit(f"banjia trace summary {trace}: {r.failure()}")
            b_runs.append(r)
        if hta_ok and i < peer_runs and not failure:
            r = run([peerlib.PEER_PY, script, hta_dir], env={"HTA_DISABLE_NS_ROUNDING": "1"},
                    rss_limit_mb=rss_limit, timeout=timeout)
            if r.ok:
                h_runs.append(r)
            else:
                failure = r.failure()
    summary = json.loads(out.read_text())["summary"]["traces"][0]
    hta = hta_result(h_runs[0]) if h_runs else None
    return b_runs, h_runs, summary, hta, failure


def agreement(summary: dict, hta: dict) -> tuple[list, bool]:
    """Rows (metric, HTA, banjia, relative difference) and whether compute and non-compute agree."""
    t = hta["temporal"][0]
    o = summary["overall"]
    rows = [("compute (union of compute kernels), µs", t["compute_time(us)"], o["compute_us"]),
            ("non-compute busy (communication + memcpy/memset), µs", t["non_compute_time(us)"],
             o["comm_us"] + o["memory_us"])]
    agree = all(rel_diff(h, b) <= TOLERANCE for _, h, b in rows)
    return [(m, f"{h:,.3f}", f"{b:,.3f}", f"{rel_diff(h, b):.1e}") for m, h, b in rows], agree


def main() -> None:
    ap = peerlib.argument_parser(__doc__, runs=5, peer_runs=3, peer_runs_help="HTA runs per fixture trace",
                                 quick_help="two fixture traces", peer="HTA", timeout=3600)
    ap.add_argument("--size-mb", type=float, default=1000)
    ap.add_argument("--big-peer-runs", type=int, default=1,
                    help="HTA runs on the synthesised trace (minutes each, more on a shared machine)")
    args = ap.parse_args()

    hta_status = peerlib.peer_status("hta")
    glance: list = []
    hta_ok = hta_status == "ok"
    # Leave a quarter of what is free now to the rest of the machine.
    rss_limit = float(os.environ.get("HTA_RSS_LIMIT_MB") or 0.75 * peerlib.mem_available_mb())
    src = peerlib.FIXTURES / "gpu-h200" / "traces" / "resnet50_fp32.json.gz"
    big = pathlib.Path(os.environ.get("TRACE") or f"/tmp/banjia_trace_bench_{args.size_mb:g}mb.json")
    if not big.exists():
        r = run([sys.executable, peerlib.REPO / "bench" / "trace_synth.py", src, big, str(args.size_mb)])
        if not r.ok:
            raise SystemExit(f"trace_synth.py: {r.failure()}")
    size = big.stat().st_size
    print(f"HolisticTraceAnalysis: {hta_status if not hta_ok else 'installed'}; memory guard for HTA: "
          f"{rss_limit:,.0f} MB (three quarters of MemAvailable at start); load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores.")
    print()
    print("Measured commands: `banjia trace summary TRACE --format json -o FILE`; HTA: `HTA_DISABLE_NS_ROUNDING=1 "
          "python hta_breakdown.py DIR` where DIR holds only TRACE and the script is "
          "`TraceAnalysis(trace_dir=DIR, include_last_profiler_step=True)`, `get_temporal_breakdown(visualize=False)`, "
          "`get_gpu_kernel_breakdown(visualize=False)` (`HTA_SCRIPT` in bench/trace_peers.py).")
    print()
    with tempfile.TemporaryDirectory(prefix="banjia_trace_peers_") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        with open(big, "rb") as f:  # page cache warm for both tools
            while f.read(1 << 24):
                pass
        b, h, summary, hta, failure = measure_pair(big, args.banjia, args.runs, args.big_peer_runs, tmp, hta_ok,
                                                   rss_limit, args.timeout)
        print(f"### Synthesised trace: {size / 1e6:,.1f} MB, `{src.name}` repeated "
              f"({summary['events']:,} events, {len(summary['steps'])} steps)")
        print()
        rows = [("`banjia trace summary --format json`", b)]
        if h:
            rows.append(("HTA `TraceAnalysis` + temporal and kernel breakdowns", h))
        print(table(["tool", "runs (s)", "median (s)", "throughput", "CPU user+sys (median, s)", "peak RSS",
                     "RSS / file"],
                    [(name, peerlib.runs_text(rs), f"{median([r.wall for r in rs]):.2f}",
                      f"{size / median([r.wall for r in rs]) / 1e9:.3f} GB/s", f"{median([r.cpu for r in rs]):.2f}",
                      f"{max(r.rss_mb for r in rs):,.0f} MB", f"{max(r.rss_mb for r in rs) * 2**20 / size:.2f}x")
                     for name, rs in rows]))
        print()
        if not hta_ok:
            print(f"HTA: not measured ({hta_status}).")
            glance = ["`trace summary`", "HolisticTraceAnalysis", f"synthesised Kineto trace, {size / 1e6:,.0f} MB",
                      f"{median([r.wall for r in b]):.2f} s", f"not measured: {hta_status}", "", "", ""]
        elif failure and not h:
            print(f"HTA: no result ({failure}).")
            glance = ["`trace summary`", "HolisticTraceAnalysis", f"synthesised Kineto trace, {size / 1e6:,.0f} MB",
                      f"{median([r.wall for r in b]):.2f} s", f"failed: {failure}", "", "", ""]
        else:
            print(f"**HTA / banjia (ratio of medians): {median([r.wall for r in h]) / median([r.wall for r in b]):.1f}x** "
                  f"wall time; peak RSS {max(r.rss_mb for r in h) / max(r.rss_mb for r in b):.1f}x.")
            if failure:
                print(f"(a later HTA run failed: {failure})")
            print()
            rows_, agree = agreement(summary, hta)
            print(table(["headline", "HTA", "banjia", "relative difference"], rows_))
            glance = ["`trace summary`", "HolisticTraceAnalysis", f"synthesised Kineto trace, {size / 1e6:,.0f} MB",
                      f"{median([r.wall for r in b]):.2f} s", f"{median([r.wall for r in h]):.1f} s",
                      f"{median([r.wall for r in h]) / median([r.wall for r in b]):.0f}x",
                      f"{max(r.rss_mb for r in b):,.0f} / {max(r.rss_mb for r in h):,.0f} MB",
                      f"compute / non-compute time: {'yes' if agree else '**no**'}"]
            print()
            t = hta["temporal"][0]
            print(f"Agreement: {'yes' if agree else 'NO'} (tolerance {TOLERANCE:g}). Idle: HTA "
                  f"{t['idle_time(us)']:,.0f} µs over the kernel span {t['kernel_time(us)']:,.0f} µs, banjia "
                  f"{summary['overall']['idle_us']:,.0f} µs over the step windows {summary['overall']['wall_us']:,.0f} µs "
                  "(different windows, so not compared).")
        print()
        traces = QUICK_TRACES if args.quick else FIXTURE_TRACES
        print(f"### Fixture traces (`tests/fixtures/`; runs: banjia {args.runs}, HTA {args.peer_runs} each)")
        print()
        rows = []
        for rel in traces:
            path = peerlib.FIXTURES / rel
            if not path.exists():
                rows.append((rel, "missing", "", "", "", "", "", "", ""))
                continue
            b, h, summary, hta, failure = measure_pair(path, args.banjia, args.runs, args.peer_runs, tmp, hta_ok,
                                                       rss_limit, args.timeout)
            bm = median([r.wall for r in b])
            o = summary["overall"]
            if hta:
                t = hta["temporal"][0]
                hm = median([r.wall for r in h])
                _, agree = agreement(summary, hta)
                rows.append((f"`{rel}`", f"{bm * 1e3:.1f}", f"{hm:.2f}", f"{hm / bm:.0f}x",
                             f"{max(r.rss_mb for r in b):.0f} / {max(r.rss_mb for r in h):.0f}",
                             f"{t['compute_time(us)']:,.1f} / {o['compute_us']:,.1f}",
                             f"{t['non_compute_time(us)']:,.1f} / {o['comm_us'] + o['memory_us']:,.1f}",
                             f"{t['idle_time(us)']:,.0f} / {o['idle_us']:,.0f}", "yes" if agree else "**NO**"))
            else:
                why = failure or hta_status
                rows.append((f"`{rel}`", f"{bm * 1e3:.1f}", "—", "—", f"{max(r.rss_mb for r in b):.0f} / —",
                             f"— / {o['compute_us']:,.1f}", f"— / {o['comm_us'] + o['memory_us']:,.1f}",
                             f"— / {o['idle_us']:,.0f}", f"HTA failed: {why}"))
        if glance:
            agreed = sum(row[-1] == "yes" for row in rows)
            glance[-1] += f"; fixture traces: {agreed} of {len(rows)}" if glance[-1] else ""
            peerlib.glance(*glance)
        print(table(["trace", "banjia median (ms)", "HTA median (s)", "HTA / banjia", "peak RSS MB (banjia / HTA)",
                     "compute µs (HTA / banjia)", "non-compute busy µs (HTA / banjia)",
                     "idle µs (HTA kernel span / banjia steps)", "compute and non-compute agree"], rows))


if __name__ == "__main__":
    main()
