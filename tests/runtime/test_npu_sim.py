"""`python -m banjia.npu_sim`: the simulated npu device, the torch_npu stand-in, the CUDA stop.

Every case runs a program in a subprocess under the simulator. The programs in npu_sim_scripts/
compare each npu result with the same computation on the CPU (or with literal values) and print
"ok NAME" per check; the tests require every check to have run.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from npu_sim_harness import (  # noqa: E402
    EXAMPLES, REPO, SCRIPTS, checks, program_lines, simulate, summary, write,
)


def test_no_script_is_a_usage_error() -> None:
    result = subprocess.run([sys.executable, "-m", "banjia.npu_sim"], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO / "python")}, timeout=120)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and "usage" in result.stderr


@pytest.mark.parametrize("target", ["missing.py", "."])
def test_a_script_that_is_not_a_file_is_a_usage_error(target: str, tmp_path: Path) -> None:
    result = simulate(target, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [result.stderr.strip()] and target in result.stderr


def test_numerics_and_autograd_match_the_cpu() -> None:
    result = simulate(SCRIPTS / "numerics.py")
    assert result.returncode == 0, result.stderr
    expected = {"views", "matmul", "elementwise", "wrapped numbers", "reductions", "indexing", "out=",
                "cat stack", "autograd linear", "autograd conv", "autograd embedding", "autograd lstm",
                "autograd gru", "autograd attention", "cross_entropy grad", "AdamW for-loop",
                "AdamW {'foreach': True}", "AdamW {'fused': True}", "random streams", "inference_mode"}
    assert set(checks(result.stdout)) == expected
    npu_ops, graphs, tensors, peak = summary(result.stderr)
    assert npu_ops > 1000 and graphs == 0 and tensors > 100 and peak > 0


def test_device_torch_npu_apis_autocast_save_load_and_pinned_memory() -> None:
    result = simulate(SCRIPTS / "device_api.py")
    assert result.returncode == 0, result.stderr
    assert checks(result.stdout) == ["tensors", "modules", "device module", "properties", "memory", "accelerator",
                                     "streams", "random", "save load", "pinned memory", "autocast"]
    assert summary(result.stderr)[3] >= 1_000_000  # the 1,000,000-byte block of the memory check


def test_hccl_process_group_ddp_dtensor_and_fsdp2_in_one_process() -> None:
    result = simulate(SCRIPTS / "distributed.py")
    assert result.returncode == 0, result.stderr
    assert checks(result.stdout) == ["collectives", "ddp", "dtensor", "fsdp2"]


CUDA_CASES = {
    "torch.cuda API": ("torch.cuda.synchronize()", "torch.cuda.synchronize"),
    "tensor factory": ('x = torch.zeros(2, device="cuda")', "a CUDA device"),
    "Tensor.cuda": ("y = torch.ones(2).cuda()", "Tensor.cuda()"),
    "torch.device": ('d = torch.device("cuda:0")', "torch.device('cuda:0')"),
    "Module.to": ('torch.nn.Linear(2, 2).to("cuda")', "a CUDA device"),
    "cuda amp import": ("from torch.cuda.amp import GradScaler", "torch.cuda.amp.GradScaler"),
    "torch.amp.autocast": ('ctx = torch.amp.autocast("cuda")', "torch.autocast(device_type='cuda')"),
    "default GradScaler": ("scaler = torch.amp.GradScaler()", "torch.amp.GradScaler('cuda')"),
    "nccl": ('torch.distributed.init_process_group("nccl", init_method="tcp://127.0.0.1:1", '
             'world_size=1, rank=0)', "init_process_group(backend='nccl')"),
    "map_location": ('torch.load("ckpt.pt", map_location="cuda:0")', "torch.load(map_location='cuda:0')"),
    "device_count": ("n = torch.cuda.device_count()", "torch.cuda.device_count"),
}


@pytest.mark.parametrize("case", sorted(CUDA_CASES))
def test_cuda_use_stops_the_program_at_its_line(case: str, tmp_path: Path) -> None:
    statement, what = CUDA_CASES[case]
    script = write(tmp_path, "train.py", f"""
        import torch
        import torch_npu
        x = torch.ones(3, device="npu") * 2
        {statement}
        print("after the CUDA use")
        """)
    result = simulate(script)
    assert result.returncode == 1
    assert "after the CUDA use" not in result.stdout
    lines = program_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"banjia npu_sim: train.py:4: CUDA used: {what}")


def test_cuda_use_is_reported_at_the_innermost_frame_of_the_program(tmp_path: Path) -> None:
    write(tmp_path, "helpers.py", """
        def to_gpu(module):
            device = "cuda"
            # torch's Module.to and _apply run between this line and the CUDA use
            return module.to(device)
        """)
    script = write(tmp_path, "main.py", """
        import torch
        import torch_npu
        from helpers import to_gpu
        torch.ones(1, device="npu").sum()
        model = to_gpu(torch.nn.Linear(2, 2))
        """)
    result = simulate(script)
    assert result.returncode == 1
    assert program_lines(result.stderr)[0].startswith("banjia npu_sim: helpers.py:4: CUDA used: a CUDA device")


def test_except_exception_does_not_catch_a_cuda_use(tmp_path: Path) -> None:
    script = write(tmp_path, "train.py", """
        import torch
        import torch_npu
        try:
            torch.cuda.synchronize()
        except Exception:
            print("caught")
        """)
    result = simulate(script)
    assert result.returncode == 1 and "caught" not in result.stdout
    assert program_lines(result.stderr) == ["banjia npu_sim: train.py:4: CUDA used: torch.cuda.synchronize"]


def test_a_swallowed_cuda_use_still_fails_the_run(tmp_path: Path) -> None:
    script = write(tmp_path, "train.py", """
        import threading
        import torch
        import torch_npu
        try:
            torch.cuda.synchronize()
        except BaseException:
            pass
        thread = threading.Thread(target=lambda: torch.ones(1).cuda())
        thread.start()
        thread.join()
        print(torch.ones(2, device="npu").sum().item())
        """)
    result = simulate(script)
    assert result.returncode == 1 and "2.0" in result.stdout
    assert program_lines(result.stderr) == ["banjia npu_sim: train.py:5: CUDA used: torch.cuda.synchronize"]


def test_cuda_use_in_a_dataloader_worker_is_reported_by_the_parent(tmp_path: Path) -> None:
    script = write(tmp_path, "train.py", """
        import torch
        import torch_npu
        class Images(torch.utils.data.Dataset):
            def __len__(self):
                return 4
            def __getitem__(self, index):
                return torch.ones(2).cuda()
        for batch in torch.utils.data.DataLoader(Images(), num_workers=1):
            pass
        """)
    result = simulate(script)
    assert result.returncode == 1
    assert program_lines(result.stderr) == ["banjia npu_sim: train.py:7: CUDA used: Tensor.cuda()"]


def test_availability_queries_answer_false_and_torch_internals_pass(tmp_path: Path) -> None:
    script = write(tmp_path, "train.py", """
        import torch
        import torch_npu
        torch.manual_seed(0)  # seeds CUDA lazily inside torch: not the program's use
        device = "cuda" if torch.cuda.is_available() else "npu"
        assert not torch.cuda.is_initialized()
        print(torch.randn(2, device=device).device)
        """)
    result = simulate(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "npu:0"
    assert "CUDA availability queries answered False 2" in result.stderr


def test_a_program_that_never_uses_npu_fails(tmp_path: Path) -> None:
    script = write(tmp_path, "cpu_only.py", """
        import torch
        print(torch.ones(2).sum().item())
        """)
    result = simulate(script)
    assert result.returncode == 1 and result.stdout.strip() == "2.0"
    npu_ops, graphs, _, _ = summary(result.stderr)
    assert npu_ops == 0 and graphs == 0
    assert "ran no op on npu" in result.stderr


@pytest.mark.parametrize("ending, status, message", [
    ("sys.exit(3)", 3, None),
    ("sys.exit('stopped by the program')", 1, "stopped by the program"),
    ("raise ValueError('bad batch')", 1, "ValueError: bad batch"),
    ("sys.exit(0)", 0, None),
])
def test_the_program_exit_status_is_passed_on(ending: str, status: int, message: str | None,
                                              tmp_path: Path) -> None:
    script = write(tmp_path, "job.py", f"""
        import sys
        import torch
        import torch_npu
        torch.ones(1, device="npu").add_(1)
        {ending}
        """)
    result = simulate(script)
    assert result.returncode == status, result.stderr
    if message:
        assert message in result.stderr
    if "raise" in ending:
        assert 'File "' in result.stderr and "job.py\", line 5" in result.stderr
        assert "banjia/npu_sim" not in result.stderr.split("ValueError")[0]


def test_the_script_runs_as_python_would_run_it(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    write(tmp_path / "pkg", "sibling.py", "VALUE = 42\n")
    script = write(tmp_path / "pkg", "main.py", """
        import os
        import sys
        import torch
        import torch_npu
        import sibling
        print(__name__, sys.argv, sibling.VALUE, os.path.basename(__file__), sys.path[0])
        torch.ones(1, device="npu")
        """)
    result = simulate("pkg/main.py", "--lr", "0.1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["__main__", "['pkg/main.py',", "'--lr',", "'0.1']", "42", "main.py",
                                     str(script.parent.resolve())]


def test_an_installed_torch_npu_is_not_shadowed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "torch_npu").mkdir(parents=True)
    write(site / "torch_npu", "__init__.py", "FAKE = 'the installed torch_npu'\n")
    script = write(tmp_path, "train.py", """
        import torch
        import torch_npu
        print(torch_npu.FAKE, hasattr(torch, "npu"))
        """)
    result = simulate(script, pythonpath=[site])
    assert result.stdout.strip() == "the installed torch_npu False"
    assert result.returncode == 1  # the fake registers no npu device, so nothing ran on npu


def test_npu_used_without_importing_torch_npu_fails_like_a_real_machine(tmp_path: Path) -> None:
    script = write(tmp_path, "train.py", """
        import torch
        torch.ones(1).to("npu")
        """)
    result = simulate(script)
    assert result.returncode == 1 and "npu" in result.stderr and "Expected one of" in result.stderr


def test_autoload_loads_torch_npu_before_the_program_as_its_entry_point_does(tmp_path: Path) -> None:
    # torch >= 2.5 loads an installed torch_npu (>= 2.5) at `import torch` through the
    # `torch.backends` entry point: device-agnostic code imports no torch_npu, and torch.accelerator
    # answers with the npu device.
    script = write(tmp_path, "train.py", """
        import sys
        import torch
        print("torch_npu loaded", "torch_npu" in sys.modules)
        print(torch.accelerator.current_accelerator(check_available=True), torch.accelerator.device_count())
        x = torch.ones(3).to(torch.accelerator.current_accelerator())
        print(x.device, x.sum().item())
        """)
    result = simulate("--autoload", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["torch_npu loaded True", "npu 1", "npu:0 3.0"]
    assert summary(result.stderr)[0] > 0


def test_usage_names_the_autoload_option() -> None:
    result = subprocess.run([sys.executable, "-m", "banjia.npu_sim", "--autoload"], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO / "python")), timeout=120)
    assert result.returncode == 2 and "--autoload" in result.stderr


def test_mixing_devices_fails_like_a_real_device(tmp_path: Path) -> None:
    script = write(tmp_path, "train.py", """
        import torch
        import torch_npu
        torch.ones(3, device="npu") + torch.ones(3)
        """)
    result = simulate(script)
    assert result.returncode == 1
    assert "Expected all tensors to be on the same device" in result.stderr


def _first_line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# The first CUDA use of each example, found by text in its source.
EXAMPLE_STOPS = {
    "argparse_device.py": ("dist.init_process_group(", "init_process_group(backend='nccl')"),
    "nanogpt_style.py": ("ctx = nullcontext()", "torch.autocast(device_type='cuda')"),
    "amp_training.py": ("device = torch.device('cuda')", "torch.device('cuda')"),
    "ddp_single_process.py": ('dist.init_process_group("nccl")', "init_process_group(backend='nccl')"),
    "checkpoint_resume.py": ('device = torch.device("cuda", rank)', "torch.device('cuda:0')"),
    "device_strings.py": ("model = nn.Linear(4, 4).to(f'cuda:", "a CUDA device"),
}


@pytest.mark.parametrize("name", sorted(EXAMPLE_STOPS))
def test_cuda_examples_are_refused_at_their_first_cuda_use(name: str) -> None:
    text, what = EXAMPLE_STOPS[name]
    result = simulate(EXAMPLES / name)
    assert result.returncode == 1
    line = _first_line(EXAMPLES / name, text)
    assert program_lines(result.stderr)[0].startswith(f"banjia npu_sim: {name}:{line}: CUDA used: {what}")


def test_cuda_example_that_falls_back_to_the_cpu_is_refused() -> None:
    result = simulate(EXAMPLES / "cuda_fallback.py")
    assert result.returncode == 1 and "device cpu" in result.stdout
    assert summary(result.stderr)[0] == 0 and "ran no op on npu" in result.stderr


def test_every_example_is_covered() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(EXAMPLE_STOPS) | {"cuda_fallback.py"}
