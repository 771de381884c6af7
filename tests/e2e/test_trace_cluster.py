"""`banjia trace summary` with several inputs: a cluster view only for distinct ranks of one job (rank
ids from Kineto's distributedInfo / torch_npu's profiler_info), findings once per pattern, not per
step, and --top on the ops table. Expected values come from the events written here or read with
plain Python."""
import csv
import gzip
import io
import json
import shutil

import pytest

import trace_oracle as oracle

HTA = "kineto/hta"
H200 = "gpu-h200/traces"


def summary(run, *args):
    r = run("trace", "summary", *args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def kineto_trace(path, syncs_per_step, rank=None, world_size=None, pretty=False):
    """One GPU kernel and `syncs_per_step[i]` cudaStreamSynchronize calls in each ProfilerStep#i."""
    events, t = [], 0
    for i, syncs in enumerate(syncs_per_step):
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                       "ts": t, "dur": 1000})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 1, "dur": 2, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": "sm90_gemm_kernel", "pid": 0, "tid": 7, "ts": t + 5,
                       "dur": 50, "args": {"correlation": i + 1, "device": 0}})
        for k in range(syncs):
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1,
                           "ts": t + 100 + 15 * k, "dur": 5})
        t += 2000
    doc = {"traceEvents": events}
    if rank is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank}
        if world_size is not None:
            doc["distributedInfo"]["world_size"] = world_size
    path.write_text(json.dumps(doc, indent=1) if pretty else json.dumps(doc))
    return path


def distributed_info(path):
    with gzip.open(path, "rt") as f:
        return json.load(f).get("distributedInfo", {})


def test_ranks_of_one_job_form_a_cluster(run, tmp_path):
    # One minified (parsed whole) and one pretty-printed (parsed in parts): both readers find the rank.
    a = kineto_trace(tmp_path / "r0.json", [1, 1], rank=0, world_size=2)
    b = kineto_trace(tmp_path / "r1.json", [1, 1], rank=1, world_size=2, pretty=True)
    s = summary(run, a, b)["summary"]
    assert [r["rank"] for r in s["cluster"]["ranks"]] == [0, 1]
    assert "not_a_cluster" not in s


def test_unrelated_traces_are_not_a_cluster(run, fixtures):
    a, b = fixtures / H200 / "resnet50_fp32.json.gz", fixtures / H200 / "gpt2_sdpa_bf16.json.gz"
    assert distributed_info(a) == {} and distributed_info(b) == {}  # neither records a rank
    s = summary(run, a, b)["summary"]
    assert "cluster" not in s and len(s["traces"]) == 2
    assert s["not_a_cluster"].startswith(f"{a} records no rank")
    text = run("trace", "summary", a, b).stdout
    assert "slow rank" not in text and "cluster (mean per step" not in text
    assert f"no cluster view: {a} records no rank" in text


def test_ranks_of_different_jobs_are_not_a_cluster(run, fixtures):
    a = fixtures / HTA / "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    b = fixtures / HTA / "cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    wa, wb = distributed_info(a)["world_size"], distributed_info(b)["world_size"]
    assert wa != wb
    s = summary(run, a, b)["summary"]
    assert "cluster" not in s
    assert s["not_a_cluster"] == f"world sizes differ: {wa} in {a}, {wb} in {b}"


def test_the_same_rank_twice_is_not_a_cluster(run, tmp_path):
    a = kineto_trace(tmp_path / "a.json", [1], rank=0, world_size=2)
    b = kineto_trace(tmp_path / "b.json", [1], rank=0, world_size=2)
    s = summary(run, a, b)["summary"]
    assert "cluster" not in s and s["not_a_cluster"] == f"{a} and {b} are both rank 0"


def test_npu_ranks_of_one_output_form_a_cluster(run, fixtures):
    level = fixtures / "ascend/msinsight/text/level1"
    ranks = [json.loads((level / f"rank{r}_ascend_pt/profiler_info_{r}.json").read_text())["rank_id"] for r in (0, 1)]
    s = summary(run, level)["summary"]
    assert [r["rank"] for r in s["cluster"]["ranks"]] == ranks


def test_a_finding_that_repeats_every_step_is_reported_once(run, tmp_path):
    syncs = [40, 35, 10, 50]
    path = kineto_trace(tmp_path / "t.json", syncs)
    threshold = 32  # excessive-sync: >= 32 sync points in a step (docs/trace.md)
    firing = [f"ProfilerStep#{i}" for i, n in enumerate(syncs) if n >= threshold]
    found = [f for f in summary(run, path)["findings"] if f["rule"] == "excessive-sync"]
    assert len(found) == 1
    assert f"{len(firing)} steps ({', '.join(firing)})" in found[0]["message"]
    assert found[0]["evidence"] == "; ".join(f"{s}: {syncs[int(s.split('#')[1])]} sync points" for s in firing)


def test_ops_table_honours_top(run, fixtures):
    path = fixtures / H200 / "resnet50_fp32.json.gz"
    names = oracle.op_totals(oracle.load(path))
    for top in (3, 1000):
        r = run("trace", "summary", path, "--format", "csv", "--table", "ops", "--top", str(top))
        assert r.returncode == 0, r.stderr
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        assert len(rows) == min(top, len(names))
        selfs = [float(x["self_us"]) for x in rows]
        assert selfs == sorted(selfs, reverse=True)
    assert {x["op"] for x in rows} == set(names)


ALL_REDUCE_NELEMS = 1 << 20


def data_parallel_rank(path, rank, world, compute_us, host_wait_us=0, steps=3, sync_us=1000.0, clock_offset_us=0.0):
    """One rank of a synchronous data-parallel job: each step a GEMM of `compute_us`, then an NCCL
    all-reduce that ends, on every rank, when the slowest rank's has run `sync_us`. A rank that
    arrives early waits inside the all-reduce kernel; `host_wait_us` delays this rank's launch (its
    host waited), so its device idles first. `clock_offset_us` is added to every time this rank
    records (its clock runs ahead of the others')."""
    events, step_len, slowest = [], 4000.0, 1300.0
    for i in range(steps):
        t = i * step_len
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1,
                       "ts": t, "dur": step_len})
        for k, (name, start, dur) in enumerate([("sm90_gemm_kernel", t + 10, compute_us),
                                                ("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                                                 t + 10 + compute_us + host_wait_us, None)]):
            corr = 2 * i + k + 1
            end_all = t + 10 + slowest + sync_us  # the all-reduce completes when the slowest rank joined
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                           "ts": start - 5, "dur": 2, "args": {"correlation": corr}})
            args = {"correlation": corr, "device": 0}
            if dur is None:  # the all-reduce's message, as Kineto records NCCL kernels
                args.update({"In msg nelems": ALL_REDUCE_NELEMS, "dtype": "Float"})
            events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7 + k, "ts": start,
                           "dur": dur if dur is not None else end_all - start, "args": args})
    for e in events:
        e["ts"] += clock_offset_us
    path.write_text(json.dumps({"traceEvents": events,
                                "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world}}))
    return path


def test_the_rank_the_others_wait_for_is_the_culprit_and_the_waiting_ranks_are_not(run, tmp_path):
    # Eight ranks; rank 3's GEMM takes 1.3x as long (1300 us for 1000), so the others wait 300 us
    # per step in the all-reduce, except rank 6, whose host waited 250 us before launching it.
    files = [data_parallel_rank(tmp_path / f"rank{r}.json", r, 8, 1300.0 if r == 3 else 1000.0,
                                host_wait_us=250.0 if r == 6 else 0.0) for r in range(8)]
    cluster = summary(run, *files)["summary"]["cluster"]
    assert cluster["culprit"]["rank"] == 3
    assert cluster["culprit"]["own_us"] == pytest.approx(1300.0)
    assert cluster["culprit"]["median_own_us"] == pytest.approx(1000.0)
    # msprof-analyze's rule flags rank 6 on idle time and a waiting rank on communication time
    flagged = {m["metric"]: m for m in cluster["slow_rank_metrics"] if m["flagged"]}
    assert cluster["ranks"][flagged["idle_us"]["slowest_rank"]]["rank"] == 6
    assert cluster["ranks"][flagged["comm_us"]["slowest_rank"]]["rank"] != 3
    waiting = {w["rank"]: w["excess_us"] for w in cluster["waiting"]}
    assert set(waiting) == set(range(8)) - {3}
    # everyone waits the 300 us rank 3 computes longer (rank 6 partly idle, partly in the all-reduce)
    assert all(v == pytest.approx(300.0, abs=1.0) for v in waiting.values())
    text = run("trace", "summary", *files).stdout
    assert "culprit: rank 3" in text and "rank 6 waits longest (for rank 3)" in text


def test_arrivals_at_the_all_reduce_name_the_late_rank_whatever_the_clocks(run, tmp_path):
    # As above; in addition rank 5's clock reads 7 ms ahead, so by its raw start times it would seem
    # to arrive last at every all-reduce. The all-reduces end together, which aligns the clocks.
    files = [data_parallel_rank(tmp_path / f"rank{r}.json", r, 8, 1300.0 if r == 3 else 1000.0,
                                host_wait_us=250.0 if r == 6 else 0.0, clock_offset_us=7000.0 if r == 5 else 0.0)
             for r in range(8)]
    cluster = summary(run, *files)["summary"]["cluster"]
    assert cluster["culprit"]["rank"] == 3
    arrivals = cluster["communication"]["arrivals"]
    assert arrivals["collectives"] == 3  # one all-reduce in each of the 3 steps
    by_rank = {a["rank"]: a for a in arrivals["ranks"]}
    assert by_rank[5]["clock_offset_us"] == pytest.approx(7000.0)
    assert all(by_rank[r]["clock_offset_us"] == pytest.approx(0.0) for r in range(8) if r != 5)
    # Rank 3 starts its all-reduce at 10 + 1300 us into the step, the median other rank at 10 + 1000.
    assert arrivals["latest_rank"] == 3 and by_rank[3]["last"] == 3
    assert by_rank[3]["held_us"] == pytest.approx(300.0)
    text = run("trace", "summary", *files).stdout
    assert "rank 3 arrives last at 3 and holds the others 0.300 ms per step; the others wait for it" in text
    # The all-reduce itself: rank 3, the last to arrive, runs it for sync_us = 1000 us; 2^20 floats.
    (kind,) = cluster["communication"]["kinds"]
    assert kind == {"name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "calls": 3, "bytes": 3 * 4 * ALL_REDUCE_NELEMS,
                    "time_us": pytest.approx(3000.0), "bandwidth_gbps": pytest.approx(4 * ALL_REDUCE_NELEMS / 1000 / 1e3)}
    assert "ncclDevKernel_AllReduce_Sum_f32_RING_LL x3: 1.000 ms per call (the shortest rank's), 4.194 MB per call, 4.194 GB/s" in text


LEVEL1 = "ascend/msinsight/text/level1"


def ascend_collectives(path):
    """communication.json's operations: key -> (start, end) in us, and traffic per transport."""
    ops, traffic = {}, {}
    for step, kinds in json.loads(path.read_text()).items():
        for kind in ("collective", "p2p"):
            for name, op in kinds.get(kind, {}).items():
                if name == "Total Op Info":
                    continue
                info = op["Communication Time Info"]
                ops[f"{step}/{name}"] = (info["Start Timestamp(us)"],
                                         info["Start Timestamp(us)"] + 1000 * info["Elapse Time(ms)"])
                for transport, t in op["Communication Bandwidth Info"].items():
                    size, ms = traffic.get(transport, (0.0, 0.0))
                    traffic[transport] = (size + t["Transit Size(MB)"], ms + t["Transit Time(ms)"])
    return ops, traffic


def test_npu_ranks_arrivals_and_bandwidth_are_what_their_communication_json_says(run, fixtures):
    level = fixtures / LEVEL1
    out = [level / f"rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json" for r in (0, 1)]
    (ops0, traffic0), (ops1, traffic1) = ascend_collectives(out[0]), ascend_collectives(out[1])
    s = summary(run, level)["summary"]
    comm = s["cluster"]["communication"]
    shared = sorted(set(ops0) & set(ops1))
    assert comm["arrivals"]["collectives"] == len(shared) > 0
    diffs = sorted(ops1[k][1] - ops0[k][1] for k in shared)
    mid = len(diffs) // 2
    offset = diffs[mid] if len(diffs) % 2 else (diffs[mid - 1] + diffs[mid]) / 2
    steps = len(s["traces"][0]["steps"]) or 1
    last, held = [0, 0], [0.0, 0.0]
    for k in shared:
        a = [ops0[k][0], ops1[k][0] - offset]
        late = 1 if a[1] > a[0] else 0
        if a[late] > a[1 - late]:
            last[late] += 1
            held[late] += (a[late] - a[1 - late]) / steps  # the other rank's arrival is the others' median
    ranks = comm["arrivals"]["ranks"]
    assert ranks[1]["clock_offset_us"] == pytest.approx(offset, abs=0.5)
    assert [r["last"] for r in ranks] == last
    assert [r["held_us"] for r in ranks] == pytest.approx(held, abs=0.5)
    for b in comm["transports"]:
        for r, traffic in enumerate((traffic0, traffic1)):
            size, ms = traffic[b["transport"]]
            assert b["ranks"][r]["size_mb"] == pytest.approx(size)
            assert b["ranks"][r]["bandwidth_gbps"] == pytest.approx(size / ms if ms else 0)
    assert {b["transport"] for b in comm["transports"]} == {t for t in ("SDMA", "RDMA")
                                                           if traffic0.get(t, (0, 0))[0] or traffic1.get(t, (0, 0))[0]}


def test_npu_links_are_the_totals_of_communication_matrix_json(run, fixtures, tmp_path):
    # Links name ranks within their group; the group's members are the profiled ranks whose files
    # name it (here ranks 0 and 1 of an eight-rank group: links to its ranks 2-7 are not mapped).
    level = fixtures / LEVEL1
    matrices = {}
    for r in (0, 1):
        info = json.loads((level / f"rank{r}_ascend_pt/profiler_info_{r}.json").read_text())
        matrices[info["rank_id"]] = json.loads(
            (level / f"rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json").read_text())
    members = {}
    for rank, matrix in sorted(matrices.items()):
        for kinds in matrix.values():
            for name in kinds.get("collective", {}):
                members.setdefault(name.split("@")[1], set()).add(rank)
    expected, unmapped = {}, 0
    for matrix in matrices.values():
        for kinds in matrix.values():
            assert not kinds.get("p2p")  # this run has collectives only
            for name, links in kinds.get("collective", {}).items():
                if not name.split("@")[0].endswith("-total"):
                    continue
                group = sorted(members[name.split("@")[1]])
                for ends, link in links.items():
                    src, dst = map(int, ends.split("-"))
                    if max(src, dst) >= len(group):
                        unmapped += 1
                        continue
                    collective = name.split("@")[0].removesuffix("-total")
                    for key in ((group[src], group[dst], link["Transport Type"], "all"),
                                (group[src], group[dst], link["Transport Type"], collective)):
                        size, ms = expected.get(key, (0.0, 0.0))
                        expected[key] = (size + link["Transit Size(MB)"], ms + link["Transit Time(ms)"])
    assert unmapped > 0 and len({k[:3] for k in expected}) == 4  # 0->0, 0->1, 1->1, 1->0
    assert summary(run, level)["summary"]["cluster"]["communication"]["unmapped_links"] == unmapped
    rows = list(csv.DictReader(io.StringIO(run("trace", "summary", level, "--format", "csv", "--table", "links").stdout)))
    got = {(int(r["src"]), int(r["dst"]), r["transport"], r["collective"]): (float(r["size_mb"]), float(r["time_ms"]))
           for r in rows}
    assert got.keys() == expected.keys()
    for k, (size, ms) in expected.items():
        assert got[k] == pytest.approx((size, ms), abs=1e-6), k  # written with 6 decimals
    assert run("trace", "summary", level, "--html", tmp_path / "cluster.html").returncode == 0
    html = (tmp_path / "cluster.html").read_text()
    assert "Link bandwidth (from the row" in html
    for src, dst, transport, _ in expected:  # a heat map cell per link between two ranks
        if transport != "LOCAL":
            assert f'title="{transport}"' in html


def test_pipeline_stage_and_bubble_per_rank_come_from_step_trace_time_csv(run, fixtures, tmp_path):
    # The two ranks, with rank 1's step_trace_time.csv saying 5 ms of its stage was a bubble.
    level = tmp_path / "level1"
    shutil.copytree(fixtures / LEVEL1, level)
    csv_path = level / "rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    rows[0]["Bubble"] = "5000"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    csv_path.write_text(out.getvalue())
    expected = {}
    for r in (0, 1):
        info = json.loads((level / f"rank{r}_ascend_pt/profiler_info_{r}.json").read_text())
        steps = list(csv.DictReader(io.StringIO(
            (level / f"rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv").read_text())))
        expected[info["rank_id"]] = (sum(float(x["Stage"]) for x in steps) / len(steps),
                                     sum(float(x["Bubble"]) for x in steps) / len(steps))
    ranks = summary(run, level)["summary"]["cluster"]["ranks"]
    for rank in ranks:
        assert (rank["stage_us"], rank["bubble_us"]) == pytest.approx(expected[rank["rank"]])
    text = run("trace", "summary", level).stdout
    stage = expected[1][0]
    assert (f"pipeline bubble: largest at rank 1: 5.000 ms per step of its stage's {stage / 1000:.3f} ms "
            f"({100 * 5000 / stage:.0f}%)") in text
    # Kineto traces record no stages.
    files = [data_parallel_rank(tmp_path / f"k{r}.json", r, 2, 1000.0) for r in range(2)]
    assert all(r["stage_us"] is None and r["bubble_us"] is None for r in summary(run, *files)["summary"]["cluster"]["ranks"])
