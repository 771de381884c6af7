"""Several processes and devices under `python -m banjia.npu_sim`: child processes run on the
simulated npu and report to the run's verdict, each rank has its own device, hccl connects ranks.

The DDP and FSDP2 runs are checked against single-process trainings on the CPU computed here: with
the gradients averaged over two ranks that each see half of every batch, every rank ends with the
parameters of full-batch training, and the mean of the ranks' losses is the full-batch loss.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from npu_sim_harness import SCRIPTS, checks, free_port, simulate, summary  # noqa: E402

PROCESSES = SCRIPTS / "processes"
STEPS, BATCH = 3, 8  # as in processes/ranks.py
nn = torch.nn


def _ddp_data(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(BATCH, 6, generator=g), torch.randint(0, 3, (BATCH,), generator=g)


def _fsdp2_data(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(200 + step)
    return torch.randn(BATCH, 6, generator=g), torch.randn(BATCH, 2, generator=g)


def _full_batch_ddp_training() -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(STEPS):
        x, y = _ddp_data(step)
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return model.state_dict()


def _full_batch_fsdp2_training() -> tuple[list[float], dict[str, torch.Tensor]]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
    losses = []
    for step in range(STEPS):
        x, y = _fsdp2_data(step)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses, model.state_dict()


def _expected_collectives(rank: int) -> dict[str, list[float] | list[list[float]]]:
    """What each collective of ranks.py gives rank `rank` of two, from the inputs' formulas."""
    return {
        "all_reduce": [float(2 * i + 10) for i in range(4)],
        "broadcast": [10.0, 11.0, 12.0, 13.0],
        "all_gather": [[0.0, 0.0], [1.0, 1.0]],
        "all_gather_into_tensor": [1.0, 1.0, 2.0, 2.0],
        "reduce_scatter_tensor": [3.0 * i for i in (2 * rank, 2 * rank + 1)],
        "reduce_scatter": [3.0 * i for i in (2 * rank, 2 * rank + 1)],
        "all_reduce_avg": [2.5, 2.5, 2.5],
        "all_to_all_single": [float(rank), float(rank + 10)],
    }


def _check_ranks(out: Path) -> None:
    expected_parameters = _full_batch_ddp_training()
    expected_losses, expected_fsdp2_parameters = _full_batch_fsdp2_training()
    ranks = [torch.load(out / f"rank{rank}.pt") for rank in (0, 1)]
    assert expected_losses[-1] < expected_losses[0]
    torch.testing.assert_close([sum(r["fsdp2_losses"][step] for r in ranks) / 2 for step in range(STEPS)],
                               expected_losses)
    for rank, saved in enumerate(ranks):
        assert saved["facts"] == {"device_count": 2, "accelerator_count": 2, "current": rank,
                                  "accelerator_current": rank, "parameter_device": f"npu:{rank}"}
        collectives = {name: t.tolist() for name, t in saved["collectives"].items()}
        reduced = collectives.pop("reduce")
        assert collectives == _expected_collectives(rank)
        if rank == 0:
            assert reduced == [6.0, 6.0, 6.0]  # 2 * 3, the product lands on the destination
        for name, value in saved["parameters"].items():
            torch.testing.assert_close(value, expected_parameters[name], msg=name)
        for name, value in saved["fsdp2_parameters"].items():
            torch.testing.assert_close(value, expected_fsdp2_parameters[name], msg=name)


def test_ddp_fsdp2_and_dtensor_over_hccl_in_processes_of_torch_multiprocessing_spawn(tmp_path: Path) -> None:
    result = simulate(PROCESSES / "ranks.py", str(tmp_path), str(free_port()))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "child processes 2 (counted above), 2 of them ran ops on npu" in result.stderr
    _check_ranks(tmp_path)


def test_ddp_fsdp2_and_dtensor_over_hccl_in_workers_of_torchrun_started_as_a_module(tmp_path: Path) -> None:
    result = simulate("-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port",
                      str(free_port()), str(PROCESSES / "ranks.py"), str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "child processes 2 (counted above), 2 of them ran ops on npu" in result.stderr
    _check_ranks(tmp_path)


def test_ops_of_spawned_forkserver_and_subprocess_children_count_for_the_run() -> None:
    # The program runs no op on npu itself: without its children's reports the run would fail.
    # Under --autoload a child that imports no torch_npu gets it as torch would load an installed one.
    result = simulate("--autoload", PROCESSES / "children_run.py")
    assert result.returncode == 0, result.stderr[-3000:]
    assert checks(result.stdout) == ["spawn", "forkserver", "subprocess ok", "subprocess accelerator"]
    assert "child processes 4 (counted above), 4 of them ran ops on npu" in result.stderr
    assert summary(result.stderr)[0] >= 4 * 2  # each child: at least a copy to npu and a matmul


def test_a_cuda_use_or_a_crash_in_a_child_fails_the_run_with_its_line() -> None:
    result = simulate(PROCESSES / "children_fail.py")
    assert result.returncode == 1, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1] == "program done"  # the program itself ended well
    lines = result.stderr.splitlines()
    cuda = [line for line in lines if line.startswith("banjia npu_sim:") and "CUDA used" in line]
    assert len(cuda) == 1 and re.match(
        r"banjia npu_sim: children_fail\.py:15: CUDA used: torch\.cuda\.synchronize \(in child process \d+", cuda[0])
    crash = [line for line in lines if " failed: " in line]
    assert len(crash) == 1 and crash[0].endswith("failed: python_child.py:18: ValueError: child 3 gave up")
    assert "CUDA uses 1;" in result.stderr


def test_two_devices_in_one_process() -> None:
    result = simulate(SCRIPTS / "devices.py", env={"BANJIA_NPU_SIM_DEVICES": "2"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert checks(result.stdout) == ["count", "current device", "devices do not mix", "autograd on npu:1",
                                     "memory per device"]


def test_dash_m_without_a_module_is_a_usage_error() -> None:
    result = simulate("-m")
    assert result.returncode == 2 and result.stderr.strip() == "banjia npu_sim: -m needs a module name"
