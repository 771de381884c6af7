"""Migrated programs run: every example in examples/npu_sim is migrated by `banjia migrate` and run
under the simulated NPU (`python -m banjia.npu_sim`), where it must finish with exit 0, run its ops on
npu and touch no CUDA; the CUDA original must fail there, so the simulator cannot pass everything."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "npu_sim"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))


def simulate(script: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "banjia.npu_sim", script.name], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def migrated(banjia_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("migrated") / "npu_sim"
    r = subprocess.run([banjia_bin, "migrate", str(EXAMPLES), "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def test_there_are_examples():
    assert len(SCRIPTS) >= 7


@pytest.mark.parametrize("script", SCRIPTS)
def test_migrated_example_runs_on_the_simulated_npu(migrated, script):
    r = simulate(migrated / script)
    assert r.returncode == 0, r.stderr[-2000:]
    npu_ops = int(re.search(r"aten ops on npu (\d+)", r.stderr).group(1))
    assert npu_ops > 0
    assert re.search(r"CUDA uses 0\b", r.stderr), r.stderr[-2000:]


@pytest.mark.parametrize("script", SCRIPTS)
def test_cuda_original_fails_on_the_simulated_npu(script):
    r = simulate(EXAMPLES / script)
    assert r.returncode != 0
    assert "banjia npu_sim:" in r.stderr
