"""examples/llm_kernels (a small decoder on flash-attn, xformers and apex) before and after `banjia migrate`.

Before: the ORIGINAL program runs on the CPU with the CUDA libraries stood in by CPU references of their
documented semantics (tests/fixtures/cuda_refs), and, with the real names only, stops at `import flash_attn`
as it would on an NPU machine. After: the program `banjia migrate` writes (imports redirected to the shims
it adds: flash_attn_npu, xformers_npu, apex_npu) runs under `python -m banjia.npu_sim` on npu tensors, through
the simulated torch_npu kernels, and prints the same three losses within float32 tolerance."""
from __future__ import annotations

import math
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm_kernels"
CUDA_REFS = REPO / "tests" / "fixtures" / "cuda_refs"
SHIMS = ("flash_attn_npu.py", "xformers_npu.py", "apex_npu.py")
LOSS = re.compile(r"^step (\d+): loss ([-\d.e+]+)$", re.M)


def run(directory: pathlib.Path, *pythonpath: pathlib.Path, simulated: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath))
    env.pop("TORCH_TRANSFER_TO_NPU", None)
    command = [sys.executable, *(["-m", "banjia.npu_sim"] if simulated else []), "train.py"]
    return subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True, timeout=600)


def losses(stdout: str) -> list[float]:
    found = [(int(n), float(v)) for n, v in LOSS.findall(stdout)]
    assert [n for n, _ in found] == [1, 2, 3], stdout
    return [v for _, v in found]


@pytest.fixture(scope="module")
def original_losses() -> list[float]:
    r = run(EXAMPLE, CUDA_REFS)
    assert r.returncode == 0, r.stderr[-3000:]
    return losses(r.stdout)


def test_original_trains_on_the_cpu_with_the_cuda_libraries_stood_in(original_losses: list[float]) -> None:
    assert all(math.isfinite(v) for v in original_losses)
    assert original_losses[-1] < original_losses[0], original_losses


def test_original_stops_at_its_flash_attn_import() -> None:
    r = run(EXAMPLE)  # the real module names only: no flash_attn on this machine, as on an NPU machine
    assert r.returncode == 1
    line = next(i for i, text in enumerate((EXAMPLE / "model.py").read_text().splitlines(), 1)
                if text.startswith("from flash_attn import"))
    assert f'model.py", line {line}' in r.stderr, r.stderr[-3000:]
    assert "ModuleNotFoundError: No module named 'flash_attn'" in r.stderr, r.stderr[-3000:]


@pytest.fixture(scope="module")
def migrated(banjia_bin: str, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("kernels") / "llm_kernels"
    r = subprocess.run([banjia_bin, "migrate", str(EXAMPLE), "-o", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def test_migrated_trains_on_the_simulated_npu_with_the_same_losses(migrated: pathlib.Path,
                                                                   original_losses: list[float]) -> None:
    written = {p.name for p in migrated.rglob("*_npu.py")}
    if not written & set(SHIMS):
        pytest.skip("banjia migrate has no shim support yet")
    assert written >= set(SHIMS), sorted(written)
    for source in migrated.rglob("*.py"):  # nothing imports the CUDA libraries any more
        if source.name not in SHIMS:
            assert not re.search(r"^\s*(from|import) (flash_attn|xformers|apex)\b", source.read_text(), re.M), source
    r = run(migrated, REPO / "python", simulated=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"CUDA uses 0\b", r.stderr), r.stderr[-3000:]
    got = losses(r.stdout)
    assert got == pytest.approx(original_losses, rel=1e-4), (got, original_losses)
