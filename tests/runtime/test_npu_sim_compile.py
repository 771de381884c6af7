"""torch.compile under `python -m banjia.npu_sim`: Dynamo traces npu code, Inductor compiles it to CPU
code that runs on the npu memory, results equal eager on the CPU and the run counts them on npu."""
from __future__ import annotations

import pytest

pytest.importorskip("torch")

from npu_sim_harness import SCRIPTS, checks, simulate, summary  # noqa: E402


def test_compiled_functions_modules_and_optimizer_steps_match_eager_on_the_cpu() -> None:
    result = simulate(SCRIPTS / "compiled.py")
    assert result.returncode == 0, result.stderr[-3000:]
    assert checks(result.stdout) == ["fullgraph function", "aot_eager", "compiled module and optimizer step"]
    npu_ops, graphs, _, _ = summary(result.stderr)
    # Each call of a compiled npu graph is counted: the function twice, the module's forward and
    # backward twice each, the optimizer step twice (at least one graph per call).
    assert graphs >= 8, result.stderr[-3000:]
    assert npu_ops > 0 and "CUDA uses 0;" in result.stderr
