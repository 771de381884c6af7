"""The `torch_npu` stand-in: imported only when no real torch_npu can be found.

A finder at the end of sys.meta_path answers `import torch_npu` only after every other finder
(the path entries where a real torch_npu would be installed) has said no. Importing the stand-in
does what importing torch_npu does (banjia.npu_sim.backend.install): it registers the npu device,
`torch.npu`, autocast for npu and the hccl process-group backend.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, Sequence

from banjia.npu_sim import backend, npu_amp, npu_attention, npu_kernels, npu_module, npu_optim, npu_profiler

VERSION = "0.0.0+banjia.npu_sim"


def _module(name: str, doc: str | None, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name, doc)
    for key, value in attrs.items():
        setattr(module, key, value)
    return module


def _missing(name: str) -> Any:
    raise AttributeError(f"module 'torch_npu' has no attribute {name!r} (not provided by the simulator: "
                         "banjia npu_sim simulates torch_npu's device, amp, hccl and profiler APIs, torch_npu.optim's "
                         "fused optimizers and the kernels listed in docs/npu-sim.md)")


def _populate(torch_npu: types.ModuleType) -> None:
    transfer = _module(
        "torch_npu.contrib.transfer_to_npu",
        "Importable stand-in: under banjia npu_sim it redirects nothing; CUDA uses are reported.")
    contrib = _module("torch_npu.contrib", None, transfer_to_npu=transfer)
    torch_npu.__version__ = VERSION  # type: ignore[attr-defined]
    torch_npu.npu = npu_module  # type: ignore[attr-defined]
    torch_npu.contrib = contrib  # type: ignore[attr-defined]
    torch_npu.profiler = npu_profiler  # type: ignore[attr-defined]
    torch_npu.optim = npu_optim  # type: ignore[attr-defined]
    for kernel in (npu_attention.npu_fusion_attention, npu_kernels.npu_rms_norm, npu_kernels.npu_rotary_mul,
                   npu_kernels.npu_swiglu):
        setattr(torch_npu, kernel.__name__, kernel)
    torch_npu.__getattr__ = _missing  # type: ignore[method-assign]
    sys.modules.update({
        "torch_npu.npu": npu_module,
        "torch_npu.npu.amp": npu_amp,
        "torch_npu.contrib": contrib,
        "torch_npu.contrib.transfer_to_npu": transfer,
        "torch_npu.profiler": npu_profiler,
        "torch_npu.optim": npu_optim,
    })


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        backend.install()
        _populate(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "torch_npu":
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(), origin="banjia npu_sim")


def install_finder() -> None:
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
