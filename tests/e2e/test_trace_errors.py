"""Bad input to `banjia trace`: one line naming the file, exit code 2, never a crash; tolerated
problems (negative durations, missing fields, unknown categories) are counted as warnings."""
import gzip
import json
import os

import pytest


def fails_cleanly(run, path, *extra):
    r = run("trace", "summary", path, *extra)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], r.stderr
    return lines[0]


def test_truncated_gzip(run, fixtures, tmp_path):
    data = (fixtures / "gpu-h200/traces/antipattern_conv_in_loop_fixed.json.gz").read_bytes()
    p = tmp_path / "cut.json.gz"
    p.write_bytes(data[: len(data) // 2])
    assert "gzip" in fails_cleanly(run, p)


def test_truncated_json(run, fixtures, tmp_path):
    text = gzip.decompress((fixtures / "gpu-h200/traces/antipattern_conv_in_loop_fixed.json.gz").read_bytes())
    p = tmp_path / "cut.json"
    p.write_bytes(text[: len(text) * 2 // 3])
    fails_cleanly(run, p)


@pytest.mark.parametrize("content,needle", [
    (b"", "empty"),
    (b"hello world", "not a JSON trace"),
    (b'{"foo": 1}', "traceEvents"),
    (b'{"traceEvents": []}', "no complete"),
    (b'{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, ', "JSON"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a JSON trace"),
])
def test_not_a_trace(run, tmp_path, content, needle):
    p = tmp_path / "t.json"
    p.write_bytes(content)
    assert needle in fails_cleanly(run, p)


def test_missing_path_and_empty_directory(run, tmp_path):
    fails_cleanly(run, tmp_path / "nope.json")
    fails_cleanly(run, tmp_path)


def test_csv_missing_column(run, tmp_path):
    out = tmp_path / "x_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "kernel_details.csv").write_text("Name,Type,Start Time(us)\nAdd,Add,1.0\n")
    line = fails_cleanly(run, tmp_path / "x_ascend_pt")
    assert "Duration(us)" in line


def test_not_sqlite(run, tmp_path):
    p = tmp_path / "ascend_pytorch_profiler_0.db"
    p.write_text("not a database")
    assert "SQLite" in fails_cleanly(run, p)


def test_over_4gb_is_refused_clearly(run, tmp_path):
    p = tmp_path / "huge.json"
    with open(p, "wb") as f:  # sparse: no disk used
        f.write(b"{")
        f.truncate(4 * 1024**3 + 10)
    assert "4 GB" in fails_cleanly(run, p)
    os.remove(p)


def test_warnings_are_counted(run, tmp_path):
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": -5},
        {"ph": "X", "cat": "cpu_op", "name": "no_ts", "pid": 1, "tid": 1, "dur": 5},
        {"ph": "X", "cat": "mystery", "name": "m", "pid": 1, "tid": 1, "ts": 20, "dur": 5},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 4,
         "args": {"correlation": 5}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 3,
         "args": {"correlation": 5}},
        7,
    ]
    p = tmp_path / "w.json"
    p.write_text(json.dumps({"traceEvents": events}))
    r = run("trace", "summary", p, "--format", "json")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)["summary"]["traces"][0]
    assert t["warnings"] == {"missing_fields": 2, "negative_durations": 1, "unknown_categories": 1}
    assert t["launch_delay"]["count"] == 1 and t["launch_delay"]["median_us"] == 5.0


def test_old_2021_categories(run, tmp_path):
    events = [
        {"ph": "X", "cat": "Operator", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 1000, "dur": 500},
        {"ph": "X", "cat": "Operator", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 1010, "dur": 50,
         "args": {"external id": 3}},
        {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 1020, "dur": 10,
         "args": {"correlation": 11, "external id": 3}},
        {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1040,
         "dur": 20, "args": {"correlation": 11, "bytes": 4096}},
        {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1100, "dur": 5,
         "args": {"correlation": 12}},
        {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1110, "dur": 30,
         "args": {"correlation": 12}},
        {"ph": "s", "cat": "async", "id": 12, "pid": 1, "tid": 1, "ts": 1100},
    ]
    p = tmp_path / "old.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    r = run("trace", "summary", p, "--format", "json")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)["summary"]["traces"][0]
    s = t["steps"][0]
    assert s["name"] == "ProfilerStep#7" and s["kernels"] == 1
    assert (s["h2d_count"], s["h2d_bytes"]) == (1, 4096)
    assert s["compute_us"] == 30 and s["memory_us"] == 20 and s["wall_us"] == 500
    assert t["launch_delay"]["median_us"] == 10
    assert {c["class"]: c["count"] for c in t["kernel_classes"]}["gemm"] == 1


def test_corrupt_sqlite_export_fails_the_same_on_every_run(run):
    """corrupt-page-read-twice (docs/fuzzing.md): without cell_size_check a damaged page lets SQLite
    read stale page-cache bytes, so one run can load this database and the next fail. SQLite itself
    (Python's sqlite3, an independent reader) calls the file corrupt; every banjia run must say so too."""
    import pathlib
    import sqlite3
    p = pathlib.Path(__file__).resolve().parents[2] / "fuzz/corpus/ascend_db/regression-corrupt-page-read-twice.db"
    con = sqlite3.connect(f"file:{p}?immutable=1", uri=True)
    # Without cell_size_check SQLite's own check depends on stale page-cache bytes too: in a process
    # that had read other databases it passed this file about 1 time in 30.
    con.execute("PRAGMA cell_size_check=ON")
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        con.execute("PRAGMA quick_check").fetchall()
    con.close()
    # Separate processes: without the check about two runs in five load the file.
    for _ in range(12):
        assert "malformed" in fails_cleanly(run, p)
