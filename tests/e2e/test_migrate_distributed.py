"""`banjia migrate --distributed` (docs/distributed-migrate.md): a single-device training script becomes a
DistributedDataParallel one with a torchrun launch script.

Proof by running: examples/single_card trains on the CPU as written (one process, a global batch of 16),
and, migrated for each target, as 2 processes under `python -m banjia.npu_sim` over hccl (8 each). With
the dataset read in order, DDP averages the same 16 samples' gradients per step, so the weights rank 0
saves equal the single process's within float32 rounding, and each report prints once. The other tests
write small scripts whose expected output is spelled out here."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "single_card"
torch = pytest.importorskip("torch")


def python(args: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def single_process(tmp_path_factory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("one") / "weights.pt"
    r = python(["train.py", "--batch-size", "16", "--no-shuffle", "--save-model", str(out)], EXAMPLE)
    assert r.returncode == 0, r.stderr[-3000:]
    return torch.load(out), r.stdout


@pytest.mark.parametrize("target", ["npu", "accelerator"])
def test_two_simulated_npus_train_the_same_weights_as_one_process(run, tmp_path, single_process, target):
    out = tmp_path / "out"
    r = run("migrate", EXAMPLE, "-o", out, "--distributed", "--target", target, "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "train.py", "train_distributed.sh"]
    weights = tmp_path / "weights.pt"
    sim = ["-m", "banjia.npu_sim", *(["--autoload"] if target == "accelerator" else []),
           "-m", "torch.distributed.run", "--nproc-per-node", "2"]
    ran = python([*sim, "train.py", "--batch-size", "8", "--no-shuffle", "--save-model", str(weights)], out)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "2 of them ran ops on npu" in ran.stderr, ran.stderr[-2000:]
    expected, one_stdout = single_process
    got = torch.load(weights, map_location="cpu")
    assert list(got) == list(expected)  # model.module's state_dict: the checkpoint keeps its keys
    for key in expected:
        torch.testing.assert_close(got[key].cpu(), expected[key], rtol=1e-5, atol=1e-6)
    # rank 0 prints, once per epoch; the evaluation (on rank 0, the whole test set) reports the same
    tests = [line for line in ran.stdout.splitlines() if line.startswith("Test set")]
    assert tests == [line for line in one_stdout.splitlines() if line.startswith("Test set")]
    rules = {c["rule"] for c in json.loads((tmp_path / "r.json").read_text())["changes"]}
    assert {"ddp-process-group", "ddp-sampler", "ddp-set-epoch", "ddp-wrap", "ddp-module-access", "ddp-rank0-output",
            "ddp-rank0-eval", "ddp-imports"} <= rules


def test_the_launch_script_runs_torchrun_after_the_ascend_settings(run, tmp_path):
    for target in ("npu", "accelerator"):
        r = run("migrate", EXAMPLE / "train.py", "-o", tmp_path / target, "--distributed", "--target", target)
        assert r.returncode == 0, r.stderr
        script = (tmp_path / target / "train_distributed.sh").read_text()
        assert script.startswith("#!/usr/bin/env bash\n")
        assert script.endswith('exec torchrun --nproc_per_node "$nproc" train.py "$@"\n')
        assert ("export HCCL_CONNECT_TIMEOUT=1200\n" in script) == (target == "npu")
    shell = subprocess.run(["bash", "-n", str(tmp_path / "npu" / "train_distributed.sh")], capture_output=True, text=True)
    assert shell.returncode == 0, shell.stderr


def convert(run, tmp_path: pathlib.Path, source: str) -> tuple[str, list[tuple[int, str]]]:
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "train.py").write_text(source)
    r = run("migrate", tmp_path / "src", "-o", tmp_path / "out", "--distributed", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    manual = [(m["line"], m["rule"]) for m in json.loads((tmp_path / "r.json").read_text())["manual"]
              if m["rule"].startswith("ddp-")]
    return (tmp_path / "out" / "train.py").read_text(), manual


def line_of(text: str, start: str) -> int:
    """The line of the migrated file that starts with `start` (the items name lines of the file written)."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


LOOP = """import torch
from torch.utils.data import DataLoader

{setup}
for epoch in range(3):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
{step}
"""


def test_what_cannot_be_decided_is_reported_and_left(run, tmp_path):
    sampler = LOOP.format(setup="loader = DataLoader(data, sampler=my_sampler)\nmodel = Net()\n"
                                "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
                          step="        opt.step()")
    text, manual = convert(run, tmp_path / "a", sampler)
    assert manual == [(line_of(text, "loader = "), "ddp-custom-sampler")] and "DDP" not in text
    two = LOOP.format(setup="loader = DataLoader(data, shuffle=True)\ng, d = G(), D()\n"
                            "opt_g = torch.optim.Adam(g.parameters())\nopt_d = torch.optim.Adam(d.parameters())",
                      step="        opt_g.step()")
    text, manual = convert(run, tmp_path / "b", two)
    assert manual == [(line_of(text, "opt_g = "), "ddp-several-models")] and "DDP" not in text
    accumulate = LOOP.format(setup="loader = DataLoader(data, shuffle=True)\nmodel = Net()\n"
                                   "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
                             step="        if epoch % 2:\n            opt.step()")
    text, manual = convert(run, tmp_path / "c", accumulate)
    assert manual == [(line_of(text, "            opt.step()"), "ddp-gradient-accumulation")]
    assert "model = DDP(model" in text and "    loader.sampler.set_epoch(epoch)\n" in text


def test_a_distributed_script_and_a_script_that_does_not_train_stay(run, tmp_path):
    ddp = "import torch.distributed as dist\nfrom torch.utils.data import DataLoader\n\ndist.init_process_group('nccl')\n"
    text, manual = convert(run, tmp_path / "a", ddp)
    assert manual == [(line_of(text, "import torch.distributed"), "ddp-already-distributed")]
    # the ordinary migration only
    assert text == ddp.replace("'nccl'", "'hccl'").replace("as dist\n", "as dist\nimport torch_npu\n")
    plain = "import torch\n\nx = torch.ones(3).cuda()\nprint(x)\n"
    text, manual = convert(run, tmp_path / "b", plain)
    assert manual == [] and text == "import torch\nimport torch_npu\n\nx = torch.ones(3).npu()\nprint(x)\n"
    assert not (tmp_path / "b" / "out" / "train_distributed.sh").exists()


def test_a_launch_script_of_the_same_name_is_never_written_over(run, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "train.py").write_bytes((EXAMPLE / "train.py").read_bytes())
    (src / "train_distributed.sh").write_text("#!/bin/sh\necho mine\n")
    r = run("migrate", src, "--in-place", "--distributed", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert (src / "train_distributed.sh").read_text() == "#!/bin/sh\necho mine\n"
    manual = json.loads((tmp_path / "r.json").read_text())["manual"]
    assert any(m["rule"] == "ddp-launch-script" and m["message"].startswith("train_distributed.sh exists") for m in manual)
    assert "model = DDP(model" in (src / "train.py").read_text()
    # migrating the result again changes nothing: it is distributed now
    again = run("migrate", src, "--check", "--distributed")
    assert again.returncode == 0, again.stdout
