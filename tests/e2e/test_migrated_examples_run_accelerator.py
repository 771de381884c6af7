"""Migrated with `--target accelerator`, the programs of examples/npu_sim run on both kinds of machine
from one source: on plain CPU torch (`python script.py`) and on the simulated NPU, where torch_npu
loads itself as torch's `torch.backends` entry point does (`python -m banjia.npu_sim --autoload`). No
`import torch_npu` is written. What has no device-agnostic form stays, and the run stops exactly there.
"""
import ast
import json
import os
import pathlib
import py_compile
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "npu_sim"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))

# The simulated NPU computes each op with the CPU's kernel, so what a program prints equals the plain
# CPU run's once the device and backend names are the CPU's; nanogpt_style differs by design (bfloat16
# autocast and fused AdamW on the accelerator, neither on the CPU).
SAME_OUTPUT = [s for s in SCRIPTS if s != "nanogpt_style.py"]


def run(args: list, cwd: pathlib.Path, **env_changes: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    env.update(env_changes)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def migrated(banjia_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("accelerator") / "npu_sim"
    report = out.parent / "report.json"
    r = subprocess.run([banjia_bin, "migrate", str(EXAMPLES), "-o", str(out), "--target", "accelerator",
                        "--report", str(report)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out, json.loads(report.read_text())


def imported_modules(path: pathlib.Path) -> set:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def string_constants(path: pathlib.Path) -> set:
    return {node.value for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_the_report_names_its_target(migrated):
    assert migrated[1]["target"] == "accelerator"


@pytest.mark.parametrize("script", SCRIPTS)
def test_no_torch_npu_and_no_cuda_or_npu_device_string_is_written(migrated, script):
    out, _ = migrated
    assert "torch_npu" not in imported_modules(out / script)
    values = string_constants(out / script)
    assert not {v for v in values if v in ("cuda", "npu", "nccl", "hccl") or re.match(r"(cuda|npu):\d", v)}


@pytest.mark.parametrize("script", SCRIPTS)
def test_migrated_example_runs_on_the_simulated_npu(migrated, script):
    out, _ = migrated
    r = run(["-m", "banjia.npu_sim", "--autoload", script], out)
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(re.search(r"aten ops on npu (\d+)", r.stderr).group(1)) > 0
    assert re.search(r"CUDA uses 0\b", r.stderr), r.stderr[-2000:]


@pytest.mark.parametrize("script", SCRIPTS)
def test_migrated_example_runs_on_plain_cpu_torch(migrated, script):
    out, _ = migrated
    r = run([script], out)
    assert r.returncode == 0, (r.stdout + r.stderr)[-2000:]


@pytest.mark.parametrize("script", SAME_OUTPUT)
def test_migrated_example_prints_the_same_on_the_simulated_npu_as_on_the_cpu(migrated, script):
    out, _ = migrated
    cpu = run([script], out)
    npu = run(["-m", "banjia.npu_sim", "--autoload", script], out)
    assert cpu.returncode == 0 and npu.returncode == 0, cpu.stderr[-1000:] + npu.stderr[-1000:]
    assert cpu.stdout.strip(), cpu.stderr[-1000:]  # a loss, or the devices used
    as_cpu = re.sub(r"\bnpu(:0)?\b", "cpu", npu.stdout).replace("hccl", "gloo")
    assert as_cpu == cpu.stdout


def test_without_the_entry_point_load_the_program_runs_on_the_cpu(migrated):
    # torch_npu is not loaded (TORCH_DEVICE_BACKEND_AUTOLOAD=0, as torch reads it): no accelerator, so
    # the device-agnostic program trains on the CPU, which the simulator refuses.
    out, _ = migrated
    r = run(["-m", "banjia.npu_sim", "--autoload", "cuda_fallback.py"], out, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert r.returncode == 1 and "device cpu" in r.stdout and "ran no op on npu" in r.stderr


def test_migrating_the_output_again_changes_nothing(banjia_bin, migrated):
    out, _ = migrated
    r = subprocess.run([banjia_bin, "migrate", str(out), "--check", "--target", "accelerator"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_cifar_ddp_migrates_to_code_that_compiles(banjia_bin, tmp_path):
    out = tmp_path / "cifar"
    r = subprocess.run([banjia_bin, "migrate", str(REPO / "examples" / "cifar_ddp"), "-o", str(out),
                        "--target", "accelerator"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    sources = list(out.rglob("*.py"))
    assert sources
    shims = {p.name: p.read_bytes() for p in (REPO / "data" / "shims").glob("*.py")}
    for path in sources:
        py_compile.compile(str(path), doraise=True)
        # A kernel shim (data/shims) imports torch_npu inside its npu branch only, where tensors are on an
        # NPU and torch_npu is loaded anyway; the program's own code never names it.
        if shims.get(path.name) == path.read_bytes():
            continue
        assert "torch_npu" not in imported_modules(path)
    again = subprocess.run([banjia_bin, "migrate", str(out), "--check", "--target", "accelerator"],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout


def test_help_names_the_targets_and_an_unknown_one_is_a_usage_error(banjia_bin):
    help_text = subprocess.run([banjia_bin, "migrate", "--help"], capture_output=True, text=True, timeout=60).stdout
    assert "--target" in help_text and "accelerator" in help_text and "torch.accelerator" in help_text
    r = subprocess.run([banjia_bin, "migrate", str(EXAMPLES), "--dry-run", "--target", "tpu"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--target" in r.stderr
