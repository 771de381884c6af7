"""The modern-style example (examples/llm_modern: torchrun, NCCL with device_id, DDP, torch.compile,
bf16 autocast, a compute-capability check, fused AdamW) migrated by `banjia migrate` runs under the
simulated NPU with two processes, as `torchrun --nproc-per-node 2` would start it on a machine with
two NPUs. The program checks itself that the loss fell and that both ranks saw the same losses (its
exit status); the test checks that both ranks ran on npu, with compiled graphs, and touched no CUDA,
and that the CUDA original stops at its first CUDA use."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm_modern"
LAUNCH = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "train.py", "--steps", "3"]


def simulate(directory: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "banjia.npu_sim", *args], cwd=directory, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def migrated(banjia_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("llm") / "llm_modern"
    r = subprocess.run([banjia_bin, "migrate", str(EXAMPLE), "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def test_migrated_example_trains_on_two_simulated_npus(migrated):
    r = simulate(migrated, *LAUNCH)
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"CUDA uses 0\b", r.stderr), r.stderr[-3000:]
    assert re.search(r"2 of them ran ops on npu", r.stderr), r.stderr[-3000:]
    assert int(re.search(r"compiled graph calls on npu (\d+)", r.stderr).group(1)) > 0
    losses = [float(x) for x in re.findall(r"^step \d+: loss ([\d.]+)$", r.stdout, re.M)]
    assert len(losses) == 3 and losses[-1] < losses[0], r.stdout


def test_cuda_original_stops_at_its_first_cuda_use():
    r = simulate(EXAMPLE, *LAUNCH)
    assert r.returncode == 1
    # torch.cuda.set_device(local_rank) is the program's first CUDA use.
    line = next(i for i, text in enumerate((EXAMPLE / "train.py").read_text().splitlines(), 1)
                if "torch.cuda.set_device" in text)
    assert f"train.py:{line}: CUDA used: torch.cuda.set_device" in r.stderr, r.stderr[-3000:]
