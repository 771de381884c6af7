"""The `torch_npu` stand-in: imported only when no real torch_npu can be found.

A finder at the end of sys.meta_path answers `import torch_npu` only after every other finder
(the path entries where a real torch_npu would be installed) has said no. Importing the stand-in
does what importing torch_npu does: it registers the npu device and `torch.npu`, autocast for
npu, the hccl process-group backend and torch.save/torch.load support for npu storages.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, Sequence

import torch
from torch import storage as torch_storage

from banjia.npu_sim import (autocast, backend, cuda_guard, fallback, hccl, memory, npu_amp, npu_module,
                            rnn_cells)

VERSION = "0.0.0+banjia.npu_sim"
_PINNED = "_banjia_pinned"


class _Hooks(torch._C._acc.PrivateUse1Hooks):
    def is_available(self) -> bool:
        return True

    def has_primary_context(self, dev_id: int) -> bool:
        return True

    def is_built(self) -> bool:
        return True


def _pin_memory(self: torch.Tensor, device: Any = None) -> torch.Tensor:
    # The Python PrivateUse1 hooks cannot provide a pinned-memory allocator; a pinned tensor is a
    # host copy marked as pinned, which is what the program can observe.
    if device is not None and cuda_guard._is_cuda(device):
        cuda_guard.record_use(f"Tensor.pin_memory({str(device)!r})")
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    copy = self.clone()
    setattr(copy, _PINNED, True)
    return copy


def _is_pinned(self: torch.Tensor, device: Any = None) -> bool:
    return bool(getattr(self, _PINNED, False))


def _storage_to(original: Any) -> Any:
    # Storage.to(npu) would allocate through torch.UntypedStorage(device="npu"), which needs a C++
    # allocator that a Python backend cannot register.
    def to(storage: Any, device: torch.device, non_blocking: bool = False) -> Any:
        if device.type != "npu":
            return original(storage, device, non_blocking)
        fallback.check_index(device)
        return memory.copy_storage_to_npu(storage.cpu())
    return to


def _restore_on_npu(storage: Any, location: str) -> Any:
    if not (location == "npu" or location.startswith("npu:")):
        return None
    fallback.check_index(torch.device(location))
    return memory.copy_storage_to_npu(storage)


def _no_tag(storage: Any) -> None:
    return None


def _install_device() -> None:
    backend.install(npu_module, _Hooks())
    sys.modules["torch.npu.amp"] = npu_amp
    autocast.install()
    rnn_cells.install()
    hccl.install()
    setattr(torch.Tensor, "pin_memory", _pin_memory)
    setattr(torch.Tensor, "is_pinned", _is_pinned)
    setattr(torch_storage, "_to", _storage_to(getattr(torch_storage, "_to")))
    # Priority 19: consulted before torch's own (cuda 20, privateuse1 23), whose npu path would
    # allocate through torch.UntypedStorage(device="npu"), which a Python backend cannot serve.
    torch.serialization.register_package(19, _no_tag, _restore_on_npu)


def _module(name: str, doc: str | None, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name, doc)
    for key, value in attrs.items():
        setattr(module, key, value)
    return module


def _missing(name: str) -> Any:
    raise AttributeError(f"module 'torch_npu' has no attribute {name!r} "
                         "(banjia npu_sim simulates torch_npu's device, amp and hccl APIs only)")


def _populate(torch_npu: types.ModuleType) -> None:
    transfer = _module(
        "torch_npu.contrib.transfer_to_npu",
        "Importable stand-in: under banjia npu_sim it redirects nothing; CUDA uses are reported.")
    contrib = _module("torch_npu.contrib", None, transfer_to_npu=transfer)
    torch_npu.__version__ = VERSION  # type: ignore[attr-defined]
    torch_npu.npu = npu_module  # type: ignore[attr-defined]
    torch_npu.contrib = contrib  # type: ignore[attr-defined]
    torch_npu.__getattr__ = _missing  # type: ignore[method-assign]
    sys.modules.update({
        "torch_npu.npu": npu_module,
        "torch_npu.npu.amp": npu_amp,
        "torch_npu.contrib": contrib,
        "torch_npu.contrib.transfer_to_npu": transfer,
    })


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        _install_device()
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
