"""Stops the program at its first use of CUDA and says where in the program it happened.

Entry points watched:
- `torch.cuda` and its loaded submodules are replaced (in `torch` and in sys.modules) by proxies:
  reading any attribute from code outside torch is a use, except the queries is_available and
  is_initialized, which answer False (the program takes its non-CUDA path, as on an NPU machine);
- `torch.cuda._lazy_init`, which torch calls before it creates anything on a CUDA device (tensors,
  `.cuda()`, `.to("cuda")`, generators, storages), is a use from anywhere except torch.cuda's own
  functions, which torch calls to probe CUDA (those fail as on a CPU-only torch);
- `torch.device(...)` of type cuda built by the program: the program's `torch.device` is a proxy
  class (isinstance still works), torch's own code and the simulator get the real class (torch's
  module `__getattr__` answers by caller: Dynamo keeps sets and dicts keyed by the exact class);
- `Tensor.cuda`, `Module.cuda`, `torch.autocast`/`torch.amp.autocast` and `torch.amp.GradScaler`
  with device type "cuda", `torch.distributed.init_process_group`/`new_group` with an nccl backend,
  `torch.load` with a CUDA map_location, `Tensor.pin_memory("cuda")`.
Torch's own calls into torch.cuda (torch.manual_seed seeding CUDA lazily, availability checks) are
not the program's and pass.
"""
from __future__ import annotations

import functools
import os
import sys
import types
import warnings
from typing import Any, Callable, NoReturn

import torch

from banjia.npu_sim import frames, stats

PREFIX = "banjia npu_sim"


class CudaUsed(BaseException):
    """Raised at the first CUDA use; a BaseException so that `except Exception` cannot swallow it."""


class CudaUsedInWorker(RuntimeError):
    """Raised instead of CudaUsed in a forked process (a DataLoader worker): workers pass only
    Exceptions back to the parent, which raises them again with the message inside."""


_main_process: list[int] = []


def record_use(what: str) -> NoReturn:
    where = frames.user_location()
    message = f"{PREFIX}: {where.file}:{where.line}: CUDA used: {what}"
    stats.COUNTS.cuda_uses.append(message)
    if _main_process and os.getpid() != _main_process[0]:
        raise CudaUsedInWorker(message)
    raise CudaUsed(message)


def _answer_false() -> bool:
    if not frames.called_from_torch():  # the program's queries; torch asks often on its own
        stats.COUNTS.cuda_queries += 1
    return False


_QUERIES: dict[str, Callable[[], bool]] = {"is_available": _answer_false, "is_initialized": _answer_false}


def _lazy_init() -> NoReturn:
    if frames.in_torch_cuda(sys._getframe(1).f_code.co_filename):
        # A torch.cuda function (current_device, get_device_properties, ...) that torch itself called
        # (the proxy passed it; the program's own calls stop there): torch probes CUDA this way, e.g.
        # Inductor's cache key, and catches what a CPU-only torch raises, as on an NPU machine.
        raise AssertionError("Torch not compiled with CUDA enabled")
    source = frames.user_location().source
    record_use(f"a CUDA device ({source})" if source else "a CUDA device")


class _GuardedModule(types.ModuleType):
    """Stands in for torch.cuda (or one of its submodules) in torch and sys.modules."""

    def __init__(self, real: types.ModuleType) -> None:
        super().__init__(real.__name__, real.__doc__)
        object.__setattr__(self, "_banjia_real", real)
        for key in ("__file__", "__path__", "__spec__", "__loader__", "__package__"):
            if hasattr(real, key):
                object.__setattr__(self, key, getattr(real, key))

    def __getattr__(self, name: str) -> Any:
        real = object.__getattribute__(self, "_banjia_real")
        if real.__name__ == "torch.cuda":
            if name in _QUERIES:
                return _QUERIES[name]
            if name == "_lazy_init":
                return _lazy_init
        value = getattr(real, name)
        if name.startswith("__") or frames.called_from_torch():
            return value
        record_use(f"{real.__name__}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_banjia_real"), name, value)

    def __delattr__(self, name: str) -> None:
        # Attributes live in the real module (see __setattr__); unittest.mock.patch, which
        # aot_autograd applies to torch.cuda.set_rng_state, deletes what it set before restoring.
        delattr(object.__getattribute__(self, "_banjia_real"), name)

    def __dir__(self) -> list[str]:
        return dir(object.__getattribute__(self, "_banjia_real"))


_REAL_DEVICE = torch.device


class _DeviceMeta(type):
    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, _REAL_DEVICE)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, _REAL_DEVICE)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        made = _REAL_DEVICE(*args, **kwargs)
        if made.type == "cuda" and not frames.called_from_torch():
            record_use(f"torch.device({str(made)!r})")
        return made

    def __getattr__(cls, name: str) -> Any:
        return getattr(_REAL_DEVICE, name)


class device(metaclass=_DeviceMeta):
    """torch.device, watching for CUDA devices made by the program."""


def _torch_module_getattr(previous: Callable[[str], Any]) -> Callable[[str], Any]:
    deprecated = torch.__dict__.get("_deprecated_attrs", {})

    def __getattr__(name: str) -> Any:
        if name == "device":
            return _REAL_DEVICE if frames.caller_is_torch_or_simulator(sys._getframe(1)) else device
        if name in deprecated:
            return _warning_at_caller(previous, name, sys._getframe(1))
        return previous(name)
    return __getattr__


def _warning_at_caller(previous: Callable[[str], Any], name: str, caller: types.FrameType) -> Any:
    """previous(name), with its deprecation warning issued at the caller's line as torch issues it
    (stacklevel=2) without this wrapper in between: torch filters those warnings by the caller's module."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = previous(name)
    for warning in caught:
        registry = caller.f_globals.setdefault("__warningregistry__", {})
        warnings.warn_explicit(warning.message, warning.category, caller.f_code.co_filename, caller.f_lineno,
                               module=caller.f_globals.get("__name__"), registry=registry)
    return value


def _install_device_proxy() -> None:
    # Removed from the module's dict so that every lookup of torch.device goes through __getattr__.
    del torch.__dict__["device"]
    torch.__dict__["__getattr__"] = _torch_module_getattr(torch.__dict__["__getattr__"])


def is_cuda_value(value: Any) -> bool:
    if isinstance(value, str):
        return "cuda" in value
    if isinstance(value, _REAL_DEVICE):
        return value.type == "cuda"
    if isinstance(value, dict):
        return any(is_cuda_value(k) or is_cuda_value(v) for k, v in value.items())
    return False


def _guard_method(owner: Any, name: str, what: str) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if not frames.called_from_torch():
            record_use(what)
        return original(*args, **kwargs)

    setattr(owner, name, guarded)


def _is_nccl(value: Any) -> bool:
    return isinstance(value, str) and "nccl" in value.lower()


def _guard_argument(owner: Any, name: str, parameter: str, position: int, what: str,
                    default: Any = None, is_use: Callable[[Any], bool] = is_cuda_value) -> None:
    """Wraps owner.name so that a CUDA value for `parameter` (keyword or position) is a use."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        value = kwargs.get(parameter, args[position] if len(args) > position else default)
        if is_use(value) and not frames.called_from_torch():
            record_use(what.format(value=value))
        return original(*args, **kwargs)

    setattr(owner, name, guarded)


def _install_module_proxies() -> None:
    names = sorted(n for n in sys.modules if n == "torch.cuda" or n.startswith("torch.cuda."))
    proxies = {name: _GuardedModule(sys.modules[name]) for name in names}
    sys.modules.update(proxies)
    setattr(torch, "cuda", proxies["torch.cuda"])


def install() -> None:
    """Puts every guard in place; call once, before the program starts."""
    if isinstance(torch.cuda, _GuardedModule):
        return
    _main_process.append(os.getpid())
    real_cuda = sys.modules["torch.cuda"]
    setattr(real_cuda, "_lazy_init", _lazy_init)
    setattr(real_cuda, "is_available", _answer_false)
    _install_module_proxies()
    _install_device_proxy()
    _guard_method(torch.Tensor, "cuda", "Tensor.cuda()")
    _guard_method(torch.nn.Module, "cuda", "Module.cuda()")
    _guard_argument(torch.amp.autocast_mode.autocast, "__init__", "device_type", 1,
                    "torch.autocast(device_type={value!r})")
    _guard_argument(torch.amp.grad_scaler.GradScaler, "__init__", "device", 1,
                    "torch.amp.GradScaler({value!r})", default="cuda")
    import torch.distributed as dist
    if dist.is_available():
        _guard_argument(dist, "init_process_group", "backend", 0, "init_process_group(backend={value!r})",
                        is_use=_is_nccl)
        _guard_argument(dist, "new_group", "backend", 2, "new_group(backend={value!r})",
                        is_use=_is_nccl)
        dist.distributed_c10d.init_process_group = dist.init_process_group
        dist.distributed_c10d.new_group = dist.new_group
    _guard_argument(torch, "load", "map_location", 1, "torch.load(map_location={value!r})")
