"""Proof that banjia's kernel shims (data/shims: flash_attn_npu, xformers_npu, apex_npu, apex_amp_npu) compute what the
original CUDA libraries compute: each case runs the CPU stand-in of the original library
(tests/fixtures/cuda_refs) and the shim on the same inputs and compares forward results, gradients and
optimizer parameters within the dtype's tolerance. (i) on the CPU: the shims' plain-torch path, in-process;
(ii) on npu tensors under `python -m banjia.npu_sim`: the shims' torch_npu path (npu_fusion_attention,
npu_rms_norm, npu_rotary_mul, npu_swiglu, torch_npu.optim, autocast on npu), against the simulator's torch_npu ops."""
from __future__ import annotations

import re
from typing import Dict

import pytest

torch = pytest.importorskip("torch")

import kernel_shim_cases_amp  # noqa: E402,F401  (registers the cases)
import kernel_shim_cases_flash  # noqa: E402,F401
import kernel_shim_cases_kvcache  # noqa: E402,F401
import kernel_shim_cases_other  # noqa: E402,F401
from kernel_shim_harness import CASES  # noqa: E402
from npu_sim_harness import SCRIPTS, simulate  # noqa: E402


@pytest.mark.parametrize("name", list(CASES))
def test_shim_equals_original_on_cpu(name: str) -> None:
    CASES[name](torch.device("cpu"))


@pytest.fixture(scope="module")
def npu_run() -> Dict[str, object]:
    """One simulator run of every case (the simulator's start-up dominates a run)."""
    result = simulate(SCRIPTS / "kernel_shims.py", timeout=900)
    lines = result.stdout.splitlines()
    outcomes = {line.split()[1]: "ok" for line in lines if line.startswith("ok ")}
    for line in lines:
        found = re.match(r"FAIL (\S+): (.*)", line)
        if found:
            outcomes[found.group(1)] = found.group(2)
    return {"outcomes": outcomes, "stderr": result.stderr}


@pytest.mark.parametrize("name", list(CASES))
def test_shim_equals_original_on_npu(name: str, npu_run: Dict[str, object]) -> None:
    outcomes = npu_run["outcomes"]
    assert isinstance(outcomes, dict)
    outcome = outcomes.get(name)
    assert outcome is not None, f"case {name} did not report under the simulator:\n{npu_run['stderr']}"
    assert outcome == "ok", outcome
