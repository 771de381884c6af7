"""`banjia trace cluster`: per-rank reports of `trace summary --format json`, made one process per
rank (as Ray tasks or a Slurm job array make them), merge into exactly the cluster view that
`trace summary` of all the ranks in one process gives. Bad reports get one line and exit 2."""
import csv
import io
import json

import pytest

from test_trace_cluster import data_parallel_rank

LEVEL1 = "ascend/msinsight/text/level1"


def cluster_of(run, *args):
    r = run(*args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["summary"]["cluster"]


def per_rank_reports(run, tmp_path, inputs):
    out = tmp_path / "summaries"
    out.mkdir()
    for i, path in enumerate(inputs):
        r = run("trace", "summary", path, "--format", "json", "-o", out / f"r{i:02d}.json")
        assert r.returncode == 0, r.stderr
    return out


def kineto_ranks(tmp_path):
    # Eight data-parallel ranks: rank 3 computes 1.3x longer, rank 5's clock reads 7 ms ahead.
    return [data_parallel_rank(tmp_path / f"rank{r}.json", r, 8, 1300.0 if r == 3 else 1000.0,
                               clock_offset_us=7000.0 if r == 5 else 0.0) for r in range(8)]


@pytest.mark.parametrize("job", ["kineto", "npu"])
def test_merged_reports_give_the_same_cluster_view_as_one_process(run, fixtures, tmp_path, job):
    inputs = kineto_ranks(tmp_path) if job == "kineto" else sorted((fixtures / LEVEL1).glob("rank*_ascend_pt"))
    direct = cluster_of(run, "trace", "summary", *inputs)
    reports = per_rank_reports(run, tmp_path, inputs)
    assert cluster_of(run, "trace", "cluster", reports) == direct
    assert cluster_of(run, "trace", "cluster", *sorted(reports.iterdir())) == direct
    if job == "kineto":
        assert direct["culprit"]["rank"] == 3 and direct["communication"]["arrivals"]["latest_rank"] == 3
    else:
        assert direct["communication"]["links"]
    text = run("trace", "cluster", reports).stdout
    assert text.startswith("cluster (mean per step, ms):")
    assert text.strip() in run("trace", "summary", *inputs).stdout


def test_ranks_table_is_the_cluster_view_per_rank(run, tmp_path):
    inputs = kineto_ranks(tmp_path)
    reports = per_rank_reports(run, tmp_path, inputs)
    direct = cluster_of(run, "trace", "summary", *inputs)
    r = run("trace", "cluster", reports, "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    arrivals = direct["communication"]["arrivals"]["ranks"]
    assert [int(x["rank"]) for x in rows] == [x["rank"] for x in direct["ranks"]]
    for row, rank, arrival in zip(rows, direct["ranks"], arrivals):
        assert float(row["compute_us"]) == pytest.approx(rank["compute_us"], abs=1e-3)
        assert int(row["last_arrivals"]) == arrival["last"]
        assert float(row["held_us"]) == pytest.approx(arrival["held_us"], abs=1e-3)


def test_what_is_not_a_report_or_not_a_job_is_one_line_and_exit_2(run, fixtures, tmp_path):
    inputs = kineto_ranks(tmp_path)
    reports = per_rank_reports(run, tmp_path, inputs[:2])
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"tool": "banjia", "command": "compare", "summary": {}}))
    trace = inputs[0]  # a trace, not a report
    truncated = tmp_path / "truncated.json"
    truncated.write_text((reports / "r00.json").read_text()[:200])
    same_rank = tmp_path / "same"
    same_rank.mkdir()
    for name in ("a.json", "b.json"):
        (same_rank / name).write_text((reports / "r00.json").read_text())
    cases = [((other, reports / "r01.json"), f"{other}: not a report of `banjia trace summary --format json`"),
             ((trace, reports / "r01.json"), f"{trace}: not a report of `banjia trace summary --format json`"),
             ((truncated, reports / "r01.json"), f"{truncated}: invalid JSON"),
             ((reports / "r00.json",), "a cluster needs two or more ranks"),
             ((same_rank,), "not one job"),
             ((tmp_path / "missing.json",), "missing.json")]
    for args, message in cases:
        r = run("trace", "cluster", *args)
        assert r.returncode == 2, (args, r.stdout)
        assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
