"""Every kernel-shim case (tests/runtime/kernel_shim_cases_*.py) with the shims on npu tensors, so on their
torch_npu path. Prints "ok CASE" or "FAIL CASE: error" per case; a failing case does not stop the others."""
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/runtime: the cases and their harness

import torch
import torch_npu  # noqa: F401  (the simulated torch_npu the shims call)

import kernel_shim_cases_amp  # noqa: E402,F401  (registers the cases)
import kernel_shim_cases_flash  # noqa: E402,F401
import kernel_shim_cases_kvcache  # noqa: E402,F401
import kernel_shim_cases_other  # noqa: E402,F401
from kernel_shim_harness import CASES  # noqa: E402

for case_name, run in CASES.items():
    try:
        run(torch.device("npu"))
        print("ok", case_name, flush=True)
    except Exception as error:  # noqa: BLE001 - report every case; the CUDA stop (a BaseException) still ends the run
        detail = " | ".join(traceback.format_exception_only(type(error), error)[-1].strip().splitlines())
        print(f"FAIL {case_name}: {detail[:2000]}", flush=True)
