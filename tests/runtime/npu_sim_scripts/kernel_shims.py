"""Every kernel-shim case (tests/runtime/kernel_shim_cases_*.py) with the shims on npu tensors, so on their
torch_npu path. Prints "missing NAME" for each torch_npu name the simulator lacks, then "ok CASE" or
"FAIL CASE: error" per case; a failing case does not stop the others."""
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/runtime: the cases and their harness

import torch
import torch_npu

for name in ("npu_fusion_attention", "npu_rms_norm", "npu_rotary_mul", "npu_swiglu", "optim"):
    if not hasattr(torch_npu, name):
        print("missing", name)
if hasattr(torch_npu, "optim"):
    for name in ("NpuFusedAdam", "NpuFusedAdamW", "NpuFusedSGD"):
        if not hasattr(torch_npu.optim, name):
            print("missing", "optim." + name)

import kernel_shim_cases_flash  # noqa: E402,F401  (registers the cases)
import kernel_shim_cases_other  # noqa: E402,F401
from kernel_shim_harness import CASES  # noqa: E402

for case_name, run in CASES.items():
    try:
        run(torch.device("npu"))
        print("ok", case_name, flush=True)
    except Exception as error:  # noqa: BLE001 - report every case; the CUDA stop (a BaseException) still ends the run
        detail = " | ".join(traceback.format_exception_only(type(error), error)[-1].strip().splitlines())
        print(f"FAIL {case_name}: {detail[:2000]}", flush=True)
