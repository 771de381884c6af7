"""`banjia trace summary` on real torch_npu outputs: text dirs, the SQLite export, the older CSV-only
format and the cluster view. Expected values come from the profiler's own step_trace_time.csv /
analysis.db, or from Python over kernel_details.csv and trace_view.json."""
import csv
import json
import os
import shutil
import sqlite3

import pytest

TEXT = "ascend/msinsight/text"
# Both ranks at profiler level 1; rank 0 at level 0 (tests/fixtures keeps one rank of that level).
RANKS = ["level0/rank0_ascend_pt", "level1/rank0_ascend_pt", "level1/rank1_ascend_pt"]


def summary(run, *args):
    r = run("trace", "summary", *args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def step_trace_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("rank", RANKS)
def test_step_breakdown_equals_step_trace_time_csv(run, fixtures, rank):
    d = fixtures / TEXT / rank
    rows = step_trace_rows(d / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv")
    t = summary(run, d)["summary"]["traces"][0]
    assert t["format"] == "torch_npu"
    assert [s["name"] for s in t["steps"]] == [f"ProfilerStep#{r['Step']}" for r in rows]
    for s, r in zip(t["steps"], rows):
        assert s["compute_us"] == pytest.approx(float(r["Computing"]), abs=1e-3)
        assert s["comm_us"] == pytest.approx(float(r["Communication(Not Overlapped)"]), abs=1e-3)
        assert s["idle_us"] == pytest.approx(float(r["Free"]), abs=1e-3)
        e2e = float(r["Computing"]) + float(r["Communication(Not Overlapped)"]) + float(r["Free"])
        assert s["wall_us"] == pytest.approx(e2e, abs=1e-3)
        # torch_npu writes Stage = E2E - Bubble with coarser rounding
        assert s["wall_us"] == pytest.approx(float(r["Stage"]) + float(r["Bubble"]), abs=1.0)
    st = t["npu"]["step_trace"]
    assert [x["computing_us"] for x in st] == pytest.approx([float(r["Computing"]) for r in rows])


def test_npu_core_time_and_ops_from_csvs(run, fixtures):
    out = fixtures / TEXT / "level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
    core = {}
    with open(out / "kernel_details.csv", newline="") as f:
        for row in csv.DictReader(f):
            core[row["Accelerator Core"].strip()] = core.get(row["Accelerator Core"].strip(), 0) + float(row["Duration(us)"])
    with open(out / "op_statistic.csv", newline="") as f:
        stats = {row["OP Type"]: (int(row["Count"]), float(row["Total Time(us)"])) for row in csv.DictReader(f)}
    with open(out / "communication.json") as f:
        comm = json.load(f)
    elapse = sum(op["Communication Time Info"]["Elapse Time(ms)"] for step in comm.values()
                 for kind in ("collective", "p2p") for name, op in step.get(kind, {}).items() if name != "Total Op Info")
    npu = summary(run, out.parent)["summary"]["traces"][0]["npu"]
    assert npu["core_time_us"] == pytest.approx(core)
    got = {o["name"]: (o["count"], o["total_us"]) for o in npu["op_statistic"]}
    assert set(got) == set(stats)
    for name, (count, total_us) in got.items():  # pytest.approx compares flat collections only
        assert count == stats[name][0] and total_us == pytest.approx(stats[name][1]), name
    assert npu["communication_elapse_ms"] == pytest.approx(elapse)


def test_comm_not_overlapped_fires_on_msinsight_run(run, fixtures):
    d = summary(run, fixtures / TEXT / "level1/rank0_ascend_pt")
    f = [f for f in d["findings"] if f["rule"] == "comm-not-overlapped"]
    assert len(f) == 1 and f[0]["est_saving_us"] > 0


def test_sqlite_export_equals_analysis_db(run, fixtures):
    d = fixtures / "ascend/msinsight/db/level1/rank0_ascend_pt"
    con = sqlite3.connect(d / "ASCEND_PROFILER_OUTPUT/analysis.db")
    rows = con.execute("SELECT step, computing, communication_not_overlapped, free FROM StepTraceTime").fetchall()
    t = summary(run, d)["summary"]["traces"][0]
    assert [s["name"] for s in t["steps"]] == [f"ProfilerStep#{r[0]}" for r in rows]
    for s, (_, comp, comm, free) in zip(t["steps"], rows):
        assert s["compute_us"] == pytest.approx(comp, abs=1e-3)
        assert s["comm_us"] == pytest.approx(comm, abs=1e-3)
        assert s["idle_us"] == pytest.approx(free, abs=1e-3)
    # The .db file itself is accepted too.
    db = d / "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"
    assert summary(run, db)["summary"]["traces"][0]["steps"][0]["compute_us"] == pytest.approx(rows[0][1], abs=1e-3)


DB = "ascend/msinsight/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"


def step_names(run, db):
    return [s["name"] for s in summary(run, db)["summary"]["traces"][0]["steps"]]


@pytest.mark.parametrize("dirname", ["plain", "odd %41 ?x=1 #frag"])
def test_reading_the_wal_database_leaves_its_directory_as_it_was(run, fixtures, tmp_path, dirname):
    # torch_npu writes the .db in WAL mode; a read-only SQLite open would leave -wal and -shm files.
    d = tmp_path / dirname
    d.mkdir()
    db = d / "ascend_pytorch_profiler_0.db"
    shutil.copyfile(fixtures / DB, db)
    header = (fixtures / DB).read_bytes()[:100]
    assert header[18] == header[19] == 2  # SQLite file format: read/write version 2 = WAL
    with sqlite3.connect(f"file:{fixtures / DB}?immutable=1", uri=True) as con:
        (step,) = con.execute("SELECT id FROM STEP_TIME").fetchone()
    before = sorted(os.listdir(d))
    assert f"ProfilerStep#{step}" in step_names(run, db)
    assert sorted(os.listdir(d)) == before


def test_commits_still_in_the_wal_file_are_read(run, fixtures, tmp_path):
    # A writer that never closed the database: its last commit is only in the -wal file.
    live, copy = tmp_path / "live", tmp_path / "copy"
    live.mkdir()
    copy.mkdir()
    shutil.copyfile(fixtures / DB, live / "p.db")
    con = sqlite3.connect(live / "p.db")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("UPDATE STEP_TIME SET id = 4242")
    con.commit()
    for name in ("p.db", "p.db-wal"):
        shutil.copyfile(live / name, copy / name)
    con.close()
    assert "ProfilerStep#4242" in step_names(run, copy / "p.db")


def test_older_output_without_trace_view(run, fixtures):
    d = fixtures / "ascend/msinsight/test_data/test_rank_0"
    kd = d / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"
    with open(kd, newline="") as f:
        rows = list(csv.DictReader(f))
    ai_cpu = [float(r["Duration(us)"]) for r in rows if r["Accelerator Core"].strip() == "AI_CPU"]
    compute_rows = [r for r in rows if r["Accelerator Core"].strip() != "HCCL"]
    out = summary(run, d)
    t = out["summary"]["traces"][0]
    assert t["npu"]["ai_cpu_tasks"] == len(ai_cpu)
    assert t["npu"]["ai_cpu_us"] == pytest.approx(sum(ai_cpu))
    assert t["kernels"]["count"] == len(compute_rows)
    assert [f["rule"] for f in out["findings"]].count("aicpu-fallback") == (1 if any(x >= 20 for x in ai_cpu) else 0)


def test_mstt_trace_view_aicpu_and_compiles(run, fixtures):
    path = fixtures / "ascend/mstt-advisor/timeline_advice/trace_view.json"
    with open(path) as f:
        events = json.load(f)
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    aicpu = [float(e["dur"]) for e in events if e.get("ph") == "X" and procs.get(e["pid"]) == "Ascend Hardware"
             and e.get("args", {}).get("Task Type") == "AI_CPU"]
    compiles = sum(1 for e in events if e.get("ph") == "X" and e["name"] == "AscendCL@aclopCompileAndExecute")
    out = summary(run, path)
    t = out["summary"]["traces"][0]
    assert t["npu"]["ai_cpu_tasks"] == len(aicpu)
    assert t["overall"]["compile_events"] == compiles
    rules = [f["rule"] for f in out["findings"]]
    assert ("aicpu-fallback" in rules) == any(d >= 20 for d in aicpu)
    assert ("recompilation" in rules) == (compiles >= 20)


def test_cluster_view_and_slow_rank_rule(run, fixtures):
    level = fixtures / TEXT / "level1"
    per_rank = []
    for r in (0, 1):
        rows = step_trace_rows(level / f"rank{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv")
        per_rank.append({k: sum(float(x[k]) for x in rows) / len(rows)
                         for k in ("Computing", "Communication(Not Overlapped)", "Free")})
    out = summary(run, level)
    cl = out["summary"]["cluster"]
    assert len(out["summary"]["traces"]) == 2 and len(cl["ranks"]) == 2
    for got, exp in zip(cl["ranks"], per_rank):
        assert got["compute_us"] == pytest.approx(exp["Computing"], abs=1e-3)
        assert got["comm_us"] == pytest.approx(exp["Communication(Not Overlapped)"], abs=1e-3)
    flagged = False
    for metric, key in (("compute_us", "Computing"), ("comm_us", "Communication(Not Overlapped)"), ("idle_us", "Free")):
        vals = [p[key] for p in per_rank]
        gap = (max(vals) - min(vals)) / (sum(vals) / len(vals))
        m = [x for x in cl["slow_rank_metrics"] if x["metric"] == metric][0]
        assert m["gap_ratio"] == pytest.approx(gap, rel=1e-6)
        assert m["flagged"] == (gap > 0.05)
        flagged |= gap > 0.05
    assert cl["slow_rank"] in (flagged, True)  # step_us may flag too


def test_exact_string_timestamps_and_64bit_flow_ids(run, tmp_path):
    # Absolute epoch µs with 3 decimals exceed a double's precision in ns; flow ids exceed 2^53.
    events = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "CANN"}},
        {"ph": "M", "name": "process_name", "pid": 3170820512, "tid": 0, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "process_labels", "pid": 3170820512, "tid": 0, "args": {"labels": "NPU"}},
        {"ph": "X", "name": "AscendCL@aclnnAdd", "pid": 1, "tid": 7, "ts": "1736408883704643.212", "dur": 3.5},
        {"ph": "s", "cat": "HostToDevice", "name": "HostToDevice", "id": 1704161511422904204, "pid": 1, "tid": 7,
         "ts": "1736408883704643.212"},
        {"ph": "s", "cat": "HostToDevice", "name": "HostToDevice", "id": 1704161511422904205, "pid": 1, "tid": 7,
         "ts": "1736408883704600.000"},
        {"ph": "X", "name": "Add", "pid": 3170820512, "tid": 2, "ts": "1736408883704650.001", "dur": 2.25,
         "args": {"Task Type": "AI_VECTOR_CORE"}},
        {"ph": "f", "bp": "e", "cat": "HostToDevice", "name": "HostToDevice", "id": 1704161511422904204,
         "pid": 3170820512, "tid": 2, "ts": "1736408883704650.001"},
    ]
    p = tmp_path / "trace_view.json"
    p.write_text(json.dumps(events))
    t = summary(run, p)["summary"]["traces"][0]
    assert t["launch_delay"]["count"] == 1
    # 704650.001 - 704643.212 = 6.789 µs exactly (the wrong flow id would give 50.001)
    assert t["launch_delay"]["median_us"] == 6.789
    assert t["kernels"]["count"] == 1 and t["npu"]["core_time_us"] == {"AI_VECTOR_CORE": 2.25}


def operator_details_by_name(path):
    """Python over operator_details.csv: rows per op name and the four duration columns summed."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            r = out.setdefault(row["Name"].strip(), [0, 0.0, 0.0, 0.0, 0.0])
            r[0] += 1
            for i, col in enumerate(["Host Self Duration(us)", "Host Total Duration(us)",
                                     "Device Self Duration(us)", "Device Total Duration(us)"]):
                r[i + 1] += float(row[col])
    return out


@pytest.mark.parametrize("rank", ["level0/rank0_ascend_pt", "level1/rank1_ascend_pt"])
def test_operator_details_device_time_per_op(run, fixtures, rank):
    d = fixtures / TEXT / rank
    expect = operator_details_by_name(d / "ASCEND_PROFILER_OUTPUT/operator_details.csv")
    got = summary(run, d)["summary"]["traces"][0]["npu"]["operator_details"]
    assert {g["name"] for g in got} == set(expect)
    for g in got:
        e = expect[g["name"]]
        assert g["count"] == e[0]
        assert [g["host_self_us"], g["host_total_us"], g["device_self_us"], g["device_total_us"]] == \
            pytest.approx(e[1:], abs=1e-6)
    totals = [g["device_total_us"] for g in got]
    assert totals == sorted(totals, reverse=True)


def test_operator_details_gives_host_ops_without_trace_view(run, fixtures):
    # The 2023 CSV-only output: device tasks from kernel_details.csv, no host events at all.
    d = fixtures / "ascend/msinsight/test_data/test_rank_0"
    assert not (d / "ASCEND_PROFILER_OUTPUT/trace_view.json").exists()
    expect = operator_details_by_name(d / "ASCEND_PROFILER_OUTPUT/operator_details.csv")
    t = summary(run, d)["summary"]["traces"][0]
    got = {o["name"]: (o["count"], o["self_us"], o["total_us"]) for o in t["top_ops_self"]}
    assert got == {n: pytest.approx((e[0], e[1], e[2])) for n, e in expect.items()}
