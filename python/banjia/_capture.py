"""banjia.capture: record every module call's output (optionally inputs, output gradients and
parameter gradients) of a PyTorch model, on cpu, cuda or npu, into a dump `banjia compare` reads.

    with banjia.capture(model, "dumps/gpu", mode="stats"):
        loss = model(x).sum(); loss.backward()

Layout (compatible with the H200 fixture dumps): DIR/index.json with run metadata and entries
(key, module, type, call, kind, dtype, shape, stats) and, in "tensors" mode, DIR/tensors.npz keyed by
entry key. Keys: NNNN.<module path>.forward.output in execution order (the root module is "model"),
.forward.output.<i> for tuple outputs, .forward.input.<i>, NNNN.<path>.backward.grad_output for
output gradients, NNNN.<path>.backward.grad_input.<i> for the gradient a module's backward passes to
its i-th input, grad.<parameter> for parameter gradients. Floating tensors are stored as float32
(bfloat16 and float16 too; float64 stays float64) with the original dtype in the index.

"stats" mode computes max/min/mean/L2 norm/nan/inf counts with torch ops on the tensor's own device
and copies only those numbers to the host, once, when the block ends. With sketch=True (the default
in stats mode) each entry's stats also hold a 64-bucket count sketch (banjia._sketch; the index's
"sketch" names the scheme), from which compare estimates the relative error of two stats captures
as it measures that of two tensor captures.

For compare's noise model the index also records what sets the precision of the run (threads,
torch.get_float32_matmul_precision(), the TF32/HF32 flags of the device) and, per forward entry, the
autocast dtype the module ran under, whether it computes in its output's dtype (a torch.nn module
without children: "computes_in_output_dtype"), the reduction
length of its math where the module type gives it ("reduce") and, for BatchNorm, whether it used
batch statistics ("training"). The index is strict
JSON: a non-finite statistic is null and "nonfinite" names its value.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, Literal, Union, cast

from banjia import _sketch
from banjia import device as _device
from banjia._io import write_atomic

if TYPE_CHECKING:
    import numpy
    import torch
    from torch.utils.hooks import RemovableHandle

MODES = ("stats", "tensors")

# Which modules to record: None (all), names (a module and everything under it; "model" is the root)
# or a predicate on the module path.
ModuleFilter = Union[None, Iterable[str], Callable[[str], bool]]
Entry = Dict[str, Any]


def _selected(name: str, modules: ModuleFilter) -> bool:
    if modules is None:
        return True
    if callable(modules):
        return bool(modules(name))
    label = name or "model"
    return any(label == m or label.startswith(m + ".") for m in modules)


def _flatten(value: object, prefix: str) -> Iterator[tuple[str, torch.Tensor]]:
    """(suffix, tensor) pairs for a tensor or nested tuple/list/dict of tensors."""
    import torch

    if isinstance(value, torch.Tensor):
        yield prefix, value
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _flatten(v, f"{prefix}.{i}")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}.{k}")


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _device_stats(t: torch.Tensor, sketch: bool = False) -> tuple[list[torch.Tensor], torch.Tensor | None] | None:
    """[max, min, mean, norm, nan count, inf count]: 0-d tensors on t's device (no host copy), and
    where asked its count sketch (banjia._sketch), also on the device.

    A complex tensor's statistics are over its real and imaginary parts together (so the norm is
    its L2 norm); its nan and inf counts count complex elements."""
    import torch

    x = t.detach()
    if x.numel() == 0:
        return None
    # float32 statistics for every dtype but float64, which keeps float64 where the device has it
    # (Ascend NPUs do not compute in float64).
    has_float64 = x.device.type in ("cpu", "cuda")
    double = x.dtype in (torch.float64, torch.complex128) and has_float64
    wide = torch.float64 if double else torch.float32
    if x.is_complex():
        elements = x
        x = torch.view_as_real(x.resolve_conj()).to(wide)
    else:
        x = elements = x.to(wide)
    mn, mx = torch.aminmax(x)
    parts = [mx, mn, x.sum() / x.numel(), torch.linalg.vector_norm(x)]  # sum/numel: cheaper than mean()
    if x.device.type == "cpu" and math.isfinite(mx.item()) and math.isfinite(mn.item()):
        # Already on the host: max and min propagate nan and show inf, so finite ones prove both
        # counts are zero and the two elementwise passes (slow on CPU) can be skipped.
        zero = torch.zeros((), dtype=wide)
        parts += [zero, zero]
    else:
        parts += [torch.isnan(elements).sum().to(wide), torch.isinf(elements).sum().to(wide)]
    if not sketch:
        return parts, None
    # Summed in float64 where the device has it: then the sketch's own rounding is far below float32's.
    exact = torch.float64 if has_float64 else wide
    return parts, _sketch.device_sketch(x.reshape(-1).to(exact))


def _reduction(mod: torch.nn.Module, output: torch.Tensor) -> int | None:
    """How many products or values one output element sums over, for the module types that say."""
    import torch.nn as nn

    if isinstance(mod, nn.Linear):
        return mod.in_features
    if isinstance(mod, nn.modules.conv._ConvNd):
        return (mod.in_channels // mod.groups) * math.prod(mod.kernel_size)
    norms = tuple(t for t in (nn.LayerNorm, getattr(nn, "RMSNorm", None)) if isinstance(t, type))
    if isinstance(mod, norms):
        shape = getattr(mod, "normalized_shape", ())
        return int(math.prod(shape)) if shape else None
    if isinstance(mod, nn.modules.batchnorm._BatchNorm) and output.dim() >= 2 and output.shape[1] > 0:
        return int(output.numel() // output.shape[1]) if mod.training else 1
    if isinstance(mod, nn.GroupNorm) and output.dim() >= 2 and output.shape[0] > 0:
        return int(output.numel() // (output.shape[0] * mod.num_groups))
    if isinstance(mod, nn.MultiheadAttention):
        return int(mod.embed_dim)
    return None


def _autocast_dtype(device_type: str) -> str | None:
    import torch

    try:
        if torch.is_autocast_enabled(device_type):
            return _dtype_name(torch.get_autocast_dtype(device_type))
    except (RuntimeError, TypeError):  # a device type autocast does not know
        return None
    return None


def _precision_settings() -> dict[str, Any]:
    """What decides the precision of float32 math in this process, as flat metadata."""
    import torch

    out: dict[str, Any] = {"threads": torch.get_num_threads(),
                           "float32_matmul_precision": torch.get_float32_matmul_precision()}
    if torch.cuda.is_available():
        out["cuda_matmul_allow_tf32"] = bool(torch.backends.cuda.matmul.allow_tf32)
        out["cudnn_allow_tf32"] = bool(torch.backends.cudnn.allow_tf32)
    npu = getattr(torch, "npu", None)
    for flag, section in (("npu_matmul_allow_hf32", "matmul"), ("npu_conv_allow_hf32", "conv")):
        value = getattr(getattr(npu, section, None), "allow_hf32", None)
        if isinstance(value, bool):
            out[flag] = value
    return out


def _strict_stats(row: list[float], sketch: list[float] | None) -> dict[str, Any]:
    mx, mn, mean, norm, nan, inf = row
    stats: dict[str, Any] = {}
    flagged: dict[str, str] = {}
    for name, v in (("max", mx), ("min", mn), ("mean", mean), ("norm", norm)):
        if math.isfinite(v):
            stats[name] = v
        else:
            stats[name] = None
            flagged[name] = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    stats["nan"], stats["inf"] = int(nan), int(inf)
    if flagged:
        stats["nonfinite"] = flagged
    # A sketch with a non-finite bucket (an overflow, a mask of finfo.min) estimates nothing.
    if sketch is not None and all(math.isfinite(v) for v in sketch):
        stats["sketch"] = sketch
    return stats


def _host_copy(t: torch.Tensor) -> numpy.ndarray[Any, Any]:
    """numpy array on the host: floating dtypes as float32 (float64 kept), others as they are."""
    import torch

    x = t.detach()
    if x.is_floating_point() and x.dtype != torch.float64:
        x = x.float()
    return x.cpu().numpy().copy() if x.device.type == "cpu" else x.cpu().numpy()


class capture:
    """Context manager that records a model's per-module tensors; see the module docstring."""

    def __init__(self, model: torch.nn.Module, out_dir: str | os.PathLike[str], mode: str = "stats",
                 grads: bool = True, modules: ModuleFilter = None, inputs: bool = False, run: str | None = None,
                 compress: bool = False, sketch: bool = True) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.model = model
        self.out_dir = os.fspath(out_dir)
        self.mode = mode
        self.grads = grads
        self.modules = modules
        self.inputs = inputs
        self.run = run or os.path.basename(os.path.normpath(self.out_dir))
        self.compress = compress
        self.sketch = sketch and mode == "stats"
        self._handles: list[RemovableHandle] = []
        self._entries: list[Entry] = []
        # per entry: six 0-d tensors on the device and the sketch, or None for an empty tensor
        self._stats: list[tuple[list[torch.Tensor], torch.Tensor | None] | None] = []
        self._arrays: dict[str, numpy.ndarray[Any, Any]] = {}  # key -> host copy (tensors mode)
        self._order = 0
        self._calls: dict[str, int] = {}

    # -- recording -------------------------------------------------------------------------------
    def _record(self, key: str, name: str, module_type: str, call: int, kind: str, tensor: torch.Tensor,
                extra: Entry | None = None) -> None:
        entry = {"key": key, "module": name, "type": module_type, "call": call, "kind": kind,
                 "dtype": _dtype_name(tensor.dtype), "shape": list(tensor.shape)}
        if extra:
            entry.update(extra)
        self._entries.append(entry)
        self._stats.append(_device_stats(tensor, self.sketch))
        if self.mode == "tensors":
            self._arrays[key] = _host_copy(tensor)

    def _next(self) -> int:
        n = self._order
        self._order += 1
        return n

    def _forward_hook(self, name: str) -> Callable[[torch.nn.Module, tuple[Any, ...], Any], None]:
        label = name or "model"

        def hook(mod: torch.nn.Module, args: tuple[Any, ...], output: Any) -> None:
            call = self._calls.get(name, 0)
            self._calls[name] = call + 1
            n = self._next()
            base = f"{n:04d}.{label}.forward"
            if self.inputs:
                for suffix, t in _flatten(tuple(args), ".input"):
                    self._record(base + suffix, name, type(mod).__name__, call, "forward.input", t)
            for suffix, t in _flatten(output, ".output"):
                self._record(base + suffix, name, type(mod).__name__, call, "forward.output", t,
                             self._forward_facts(mod, t))
                if self.grads and t.requires_grad:
                    # A tensor hook instead of register_full_backward_hook: it does not wrap the
                    # output, so in-place ops that follow (ReLU(inplace=True)) keep working.
                    # (Tensor.register_hook carries no annotations in torch's stubs)
                    cast(Any, t).register_hook(self._grad_hook(label, name, type(mod).__name__, call, suffix))
        return hook

    def _forward_facts(self, mod: torch.nn.Module, t: torch.Tensor) -> Entry:
        import torch.nn as nn

        facts: Entry = {}
        autocast = _autocast_dtype(t.device.type)
        if autocast is not None:
            facts["autocast"] = autocast
        reduce = _reduction(mod, t)
        if reduce is not None:
            facts["reduce"] = reduce
        if isinstance(mod, nn.modules.batchnorm._BatchNorm):
            facts["training"] = bool(mod.training)
        # A torch.nn module without children computes in its output's dtype (autocast casts the
        # inputs of the ops it lowers, and those ops return the lower dtype): compare then takes a
        # float32 Embedding or LayerNorm output under autocast for what it is. A user's own module
        # may round to bfloat16 inside and still return float32, so it is not vouched for.
        facts["computes_in_output_dtype"] = (type(mod).__module__.startswith("torch.nn.")
                                             and next(iter(mod.children()), None) is None)
        return facts

    def _grad_hook(self, label: str, name: str, module_type: str, call: int, suffix: str,
                   kind: str = "grad_output") -> Callable[[torch.Tensor], None]:
        """kind "grad_output" (suffix ".output..."): the gradient of an output; "grad_input" (suffix
        ".input.<i>"): the gradient this module's backward passes to its i-th input."""
        tail = suffix.split(".", 2)[2] if suffix.count(".") >= 2 else ""

        def hook(grad: torch.Tensor) -> None:
            n = self._next()
            key = f"{n:04d}.{label}.backward.{kind}" + (f".{tail}" if tail else "")
            self._record(key, name, module_type, call, f"backward.{kind}", grad)
        return hook

    def _input_grad_pre_hook(self, name: str) -> Callable[[torch.nn.Module, tuple[Any, ...]], tuple[Any, ...] | None]:
        """Gives each floating input that requires grad a view of its own, so the gradient a hook on
        the view sees is this module's own input gradient (not the sum over every consumer of the
        tensor), then hooks it. A wrong backward is then pinned on the module whose output gradient
        agrees while its input gradient does not."""
        import torch

        label = name or "model"

        def pre_hook(mod: torch.nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
            if not torch.is_grad_enabled():
                return None
            call = self._calls.get(name, 0)
            changed = False
            out = list(args)
            for i, a in enumerate(args):
                if isinstance(a, torch.Tensor) and a.requires_grad and a.is_floating_point():
                    view = a.view_as(a)
                    cast(Any, view).register_hook(self._grad_hook(label, name, type(mod).__name__, call,
                                                                  f".input.{i}", "grad_input"))
                    out[i] = view
                    changed = True
            return tuple(out) if changed else None
        return pre_hook

    def __enter__(self) -> capture:
        for name, module in self.model.named_modules():
            if _selected(name, self.modules):
                if self.grads:
                    self._handles.append(module.register_forward_pre_hook(self._input_grad_pre_hook(name)))
                self._handles.append(module.register_forward_hook(self._forward_hook(name)))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        for h in self._handles:
            h.remove()
        self._handles.clear()
        if exc_type is not None:
            return False
        if self.grads:
            for pname, p in self.model.named_parameters():
                if p.grad is not None and _selected(pname.rpartition(".")[0], self.modules):
                    self._record(f"grad.{pname}", pname.rpartition(".")[0], "Parameter", 0, "param_grad", p.grad)
        self._write()
        return False

    # -- writing ---------------------------------------------------------------------------------
    def _host_stats(self) -> list[tuple[list[float], list[float] | None] | None]:
        """All statistics (and sketches) to the host in one transfer per device and dtype."""
        import torch

        values: list[tuple[list[float], list[float] | None] | None] = [None] * len(self._stats)
        groups: dict[tuple[torch.device, torch.dtype], list[int]] = {}
        for i, s in enumerate(self._stats):
            if s is not None:
                groups.setdefault((s[0][0].device, s[0][0].dtype), []).append(i)
        for members in groups.values():
            rows = [cast(tuple[list[torch.Tensor], Any], self._stats[i]) for i in members]
            flat: list[float] = torch.stack([p for parts, _ in rows for p in parts]).cpu().tolist()
            sketched = [k for k, (_, sk) in enumerate(rows) if sk is not None]
            sketches: list[list[float]] = (torch.stack([rows[k][1] for k in sketched]).cpu().tolist()
                                           if sketched else [])
            by_row = dict(zip(sketched, sketches))
            for k, i in enumerate(members):
                values[i] = (flat[6 * k:6 * k + 6], by_row.get(k))
        return values

    def _write(self) -> None:
        import torch

        os.makedirs(self.out_dir, exist_ok=True)
        for entry, row in zip(self._entries, self._host_stats()):
            if row is None:
                entry["stats"] = None
                continue
            entry["stats"] = _strict_stats(*row)
        model_device = _device.device_of(self.model)
        first = next(iter(self.model.parameters()), None)
        index = {
            "run": self.run,
            "format": "banjia.capture/1",
            "mode": self.mode,
            "device": str(model_device),
            "dtype": _dtype_name(first.dtype) if first is not None else None,
            **_device.versions(),
            **_precision_settings(),
            "seed": torch.initial_seed(),
            **({"sketch": _sketch.SCHEME} if self.sketch else {}),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "entries": self._entries,
        }
        if self.mode == "tensors":
            self._write_npz()
        # Compact JSON: Python's C encoder is used only without indentation (many entries per step).
        write_atomic(os.path.join(self.out_dir, "index.json"),
                      json.dumps(index, separators=(",", ":"), allow_nan=False).encode("utf-8"))

    def _write_npz(self) -> None:
        import numpy as np

        fd, tmp = tempfile.mkstemp(prefix=".tensors.", suffix=".npz", dir=self.out_dir)
        try:
            with os.fdopen(fd, "wb") as f:
                save: Callable[..., None] = np.savez_compressed if self.compress else np.savez
                save(f, **self._arrays)
            os.replace(tmp, os.path.join(self.out_dir, "tensors.npz"))
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
