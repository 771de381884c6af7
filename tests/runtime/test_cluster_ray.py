"""banjia.cluster on a real Ray instance: the test starts a local Ray head (`ray start`), and
`python -m banjia.cluster --address` runs each rank's `trace summary` as a Ray task on it and merges
the reports with `trace cluster`. The result must be the cluster view `trace summary` gives of all
the ranks in one process (computed here with the binary directly)."""
import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest

ray = pytest.importorskip("ray")

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from test_trace_cluster import data_parallel_rank  # noqa: E402

RAY = pathlib.Path(sys.executable).parent / "ray"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory):
    """A local Ray head with two CPUs and a small object store, stopped after the module."""
    port = free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    temp = tmp_path_factory.mktemp("ray")
    start = subprocess.run([str(RAY), "start", "--head", f"--port={port}", "--num-cpus=2",
                            "--object-store-memory=100000000", "--include-dashboard=false",
                            f"--temp-dir={temp}", "--disable-usage-stats"],
                           capture_output=True, text=True, env=env, timeout=180)
    assert start.returncode == 0, start.stdout[-2000:] + start.stderr[-2000:]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([str(RAY), "stop", "--force"], capture_output=True, env=env, timeout=120)


@pytest.fixture
def banjia_bin():
    path = os.environ.get("BANJIA_BIN", str(REPO / "build" / "src" / "banjia"))
    if not os.path.exists(path):
        pytest.fail(f"banjia binary not found at {path}; build first or set BANJIA_BIN")
    return path


def test_ray_tasks_give_the_cluster_view_of_one_process(ray_head, banjia_bin, tmp_path):
    ranks = [data_parallel_rank(tmp_path / f"rank{r}.json", r, 8, 1300.0 if r == 3 else 1000.0,
                                clock_offset_us=7000.0 if r == 5 else 0.0) for r in range(8)]
    direct = subprocess.run([banjia_bin, "trace", "summary", *map(str, ranks), "--format", "json"],
                            capture_output=True, text=True, timeout=300)
    assert direct.returncode == 0, direct.stderr
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(REPO / "python")}
    out = tmp_path / "summaries"
    p = subprocess.run([sys.executable, "-m", "banjia.cluster", "--address", ray_head, "--banjia", banjia_bin,
                        "--out", str(out), *map(str, ranks), "--", "--format", "json"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert json.loads(p.stdout)["summary"]["cluster"] == json.loads(direct.stdout)["summary"]["cluster"]
    # One report per rank, each the `trace summary` of that rank alone.
    reports = sorted(out.glob("*.json"))
    assert len(reports) == len(ranks)
    for report, rank in zip(reports, ranks):
        assert json.loads(report.read_text())["summary"]["traces"][0]["file"] == str(rank)


def test_a_rank_that_fails_is_named_and_exits_2(ray_head, banjia_bin, tmp_path):
    good = data_parallel_rank(tmp_path / "rank0.json", 0, 2, 1000.0)
    bad = tmp_path / "rank1.json"
    bad.write_text("{not json")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(REPO / "python")}
    p = subprocess.run([sys.executable, "-m", "banjia.cluster", "--address", ray_head, "--banjia", banjia_bin,
                        str(good), str(bad)], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 2
    assert f"banjia.cluster: {bad}: banjia trace summary exited 2" in p.stderr
