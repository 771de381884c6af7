#!/usr/bin/env python3
"""`banjia trace summary DIR` (cluster view) vs msprof-analyze's cluster analysis (`msprof-analyze
cluster -d DIR -m all`, PyPI msprof-analyze) on the same torch_npu outputs: two ranks of one job at
profiler level 1 (tests/fixtures/ascend/msinsight/text/level1, from Ascend/msinsight's test data).

Agreement:
- step trace: per rank, msprof-analyze's cluster_step_trace_time.csv (Computing, Communication(Not
  Overlapped), Free) against banjia's cluster ranks (compute_us, comm_us, idle_us; torch_npu's own
  step breakdown on both sides);
- communication matrix: per link, msprof-analyze's cluster_communication_matrix.json ("Total Op Info"
  of each step, summed) against banjia's `links` (transport, size, time, bandwidth), and which links
  each tool has (both map a group's ranks to the job's the same way, and leave out links to ranks
  that were not profiled).

    python bench/trace_cluster_peers.py --banjia BANJIA [--runs N] [--peer-runs N] [--quick]
"""
import csv
import json
import os
import pathlib
import shutil
import tempfile

import peerlib
from peerlib import median, run, table

LEVEL1 = peerlib.FIXTURES / "ascend/msinsight/text/level1"
TOLERANCE = 1e-6  # relative; both read the same numbers from the same files


def msprof_links(matrix):
    """{(src, dst): (transport, size MB, time ms)} from cluster_communication_matrix.json."""
    links = {}
    for group in matrix.values():
        for ops in group.values():
            for name, per_link in ops.items():
                if not name.startswith("Total Op Info"):
                    continue
                for ends, link in per_link.items():
                    src, dst = map(int, ends.split("-"))
                    _, size, ms = links.get((src, dst), ("", 0.0, 0.0))
                    links[(src, dst)] = (link["Transport Type"], size + link["Transit Size(MB)"],
                                         ms + link["Transit Time(ms)"])
    return links


def close(a, b):
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)


def main() -> None:
    ap = peerlib.argument_parser(__doc__, runs=5, peer_runs=3, quick_help="one run each", peer="msprof-analyze")
    args = ap.parse_args()
    status = peerlib.peer_status("msprof_analyze")
    print(f"msprof-analyze: {'installed' if status == 'ok' else status}; load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores.")
    print()
    print("Measured commands: `banjia trace summary DIR --format json -o FILE`; `msprof-analyze cluster -d DIR -m all` "
          "(it writes DIR/cluster_analysis_output, removed before each run).")
    print()
    with tempfile.TemporaryDirectory(prefix="banjia_cluster_peers_") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        data = tmp / "level1"
        shutil.copytree(LEVEL1, data)
        b_runs, m_runs = [], []
        for _ in range(args.runs):
            r = run([args.banjia, "trace", "summary", data, "--format", "json", "-o", tmp / "banjia.json"])
            if not r.ok:
                raise SystemExit(f"banjia trace summary {data}: {r.failure()}")
            b_runs.append(r)
        cluster = json.loads((tmp / "banjia.json").read_text())["summary"]["cluster"]
        out = data / "cluster_analysis_output"
        failure = "" if status == "ok" else status
        for _ in range(args.peer_runs if not failure else 0):
            shutil.rmtree(out, ignore_errors=True)
            r = run([peerlib.PEER_PY.parent / "msprof-analyze", "cluster", "-d", data, "-m", "all"], cwd=tmp,
                    timeout=args.timeout)
            if not r.ok or not (out / "cluster_communication_matrix.json").exists():
                failure = r.failure() if not r.ok else "no cluster_communication_matrix.json written"
                break
            m_runs.append(r)
        bm = median([r.wall for r in b_runs])
        if failure:
            print(f"msprof-analyze not measured: {failure}")
            peerlib.glance("`trace summary` (cluster)", "msprof-analyze cluster", "2 NPU ranks, level 1",
                           f"{bm * 1e3:.1f} ms", f"not measured: {failure}", "", "", "")
            return
        mm = median([r.wall for r in m_runs])
        steps_rows, step_agree = [], True
        with open(out / "cluster_step_trace_time.csv", newline="") as f:
            msprof_steps = {int(r["Index"]): r for r in csv.DictReader(f) if r["Type"] == "rank"}
        for rank in cluster["ranks"]:
            m = msprof_steps[rank["rank"]]
            cells, row_agree = [], True
            for ours, theirs in (("compute_us", "Computing"), ("comm_us", "Communication(Not Overlapped)"),
                                 ("idle_us", "Free")):
                row_agree &= close(rank[ours], float(m[theirs]))
                cells.append(f"{float(m[theirs]) / 1e3:,.3f} / {rank[ours] / 1e3:,.3f}")
            step_agree &= row_agree
            steps_rows.append((rank["rank"], *cells, "yes" if row_agree else "**NO**"))
        theirs = msprof_links(json.loads((out / "cluster_communication_matrix.json").read_text()))
        ours = {(l["src"], l["dst"]): (l["transport"], l["size_mb"], l["time_ms"])
                for l in cluster["communication"]["links"]}
        link_rows, link_agree = [], ours.keys() == theirs.keys()
        for key in sorted(set(ours) | set(theirs)):
            t, o = theirs.get(key), ours.get(key)
            same = t is not None and o is not None and t[0] == o[0] and close(t[1], o[1]) and close(t[2], o[2])
            link_agree &= same
            fmt = lambda v: f"{v[0]} {v[1]:,.3f} MB {v[2]:,.4f} ms ({v[1] / v[2]:,.2f} GB/s)" if v else "—"
            link_rows.append((f"{key[0]} → {key[1]}", fmt(t), fmt(o), "yes" if same else "**NO**"))
        peerlib.glance("`trace summary` (cluster)", "msprof-analyze cluster", "2 NPU ranks, level 1",
                       f"{bm * 1e3:.1f} ms", f"{mm:.1f} s", f"{mm / bm:.0f}x",
                       f"{max(r.rss_mb for r in b_runs):.0f} / {max(r.rss_mb for r in m_runs):.0f} MB",
                       f"step trace: {'yes' if step_agree else '**no**'}; links: "
                       f"{'yes' if link_agree else '**no**'} ({len(link_rows)})")
        print(f"### Speed (runs: banjia {args.runs}, msprof-analyze {args.peer_runs})")
        print()
        print(table(["input", "banjia median (ms)", "msprof-analyze median (s)", "msprof-analyze / banjia",
                     "peak RSS MB (banjia / msprof-analyze)"],
                    [("2 NPU ranks, level 1", f"{bm * 1e3:.1f}", f"{mm:.2f}", f"{mm / bm:.0f}x",
                      f"{max(r.rss_mb for r in b_runs):.0f} / {max(r.rss_mb for r in m_runs):.0f}")]))
        print()
        print("### Step trace per rank, ms (msprof-analyze cluster_step_trace_time.csv / banjia cluster ranks)")
        print()
        print(table(["rank", "Computing / compute", "Communication (Not Overlapped) / comm", "Free / idle", "agree"],
                    steps_rows))
        print()
        print("### Links (msprof-analyze cluster_communication_matrix.json / banjia links)")
        print()
        print(table(["link", "msprof-analyze", "banjia", "agree"], link_rows))
        print()
        print(f"banjia also leaves out {cluster['communication']['unmapped_links']} links to ranks of the "
              "eight-rank group that were not profiled (msprof-analyze warns \"cannot be mapped to the global rank\").")


if __name__ == "__main__":
    main()
