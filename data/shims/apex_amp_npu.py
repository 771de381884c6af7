"""apex_amp_npu: NVIDIA apex.amp (automatic mixed precision) on torch.amp, on Ascend NPUs (torch_npu) and on
any other torch device.

banjia migrate wrote this file into the migrated program and pointed the program's apex.amp imports here. The
program's owner owns it from now on: read it, edit it, check it in. It imports nothing of banjia.

The names and their contracts are apex.amp's (NVIDIA/apex before cb65b8ed, which removed amp in 2025:
apex/amp/frontend.py, handle.py, scaler.py, _initialize.py): initialize, scale_loss, master_params,
state_dict, load_state_dict. `amp` is this module, so `from apex import amp` and `import apex.amp as amp`
both keep working. The casting is torch.autocast on the model's device (torch_npu registers autocast for
"npu"); the opt levels map to it as follows:

- O1 (patch_torch_functions): each model's forward runs under torch.autocast(<device>, torch.float16), and
  its floating outputs come back as float32. apex patched torch functions in the whole program; here ops
  outside the forward run in their inputs' dtype, so the loss computes in float32, as apex's O1 lists cast
  the loss functions to float32.
- O2 (cast_model_type float16 with master_weights): the weights stay float32 (they are the master weights),
  the forward runs under autocast, the outputs are float32 as apex's O2 returns them. The model's
  state_dict holds float32 weights, as apex's O2 state_dict hook gives them.
- O3 (cast_model_type float16 without master_weights): as apex: the model cast to float16 (batch norms kept
  in float32 where keep_batchnorm_fp32), floating inputs cast to float16, outputs to float32.
- O0, and enabled=False: nothing changes.

Loss scaling is apex's LossScaler: a dynamic scale from 2**16, halved (not below min_loss_scale) when a
gradient has an inf or NaN, which skips the next optimizer.step(), doubled (not above max_loss_scale) after
2000 steps without; or the static loss_scale. torch.amp.GradScaler uses the same constants but has no bounds
and does not unscale float16 gradients (O3 with a dynamic scale), so its kernel is called directly.
scale_loss keeps apex's contract: gradients accumulated before the backward are set aside and added back,
unscaled, on exit, so optimizer.step(), clipping over amp.master_params(optimizer) and gradient accumulation
see unscaled gradients; delay_unscale=True leaves them scaled until the next scale_loss without it.

Differences, by design: autocast's op lists are torch_npu's, not apex's (GELU, for one, runs in float16
under autocast and in float32 under apex's O1), so results agree with apex within float16 tolerance, not bit
for bit. O2 holds float32 weights instead of float16 weights plus float32 master copies: less memory, the
same update. amp.register_half_function and its relatives, amp.disable_casts and the old amp.init handle
are not provided (an import of them fails at once).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import itertools
import sys
from collections import OrderedDict, defaultdict
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import torch

__all__ = ["amp", "initialize", "scale_loss", "master_params", "state_dict", "load_state_dict"]

amp = sys.modules[__name__]

Tensor = torch.Tensor
_HALF_TYPES = (torch.float16, torch.bfloat16)
# apex/amp/frontend.py: cast_model_type, patch_torch_functions, keep_batchnorm_fp32, master_weights, loss_scale
_OPT_LEVELS: Dict[str, Tuple[Optional[torch.dtype], bool, Optional[bool], Optional[bool], Any]] = {
    "O0": (torch.float32, False, None, False, 1.0),
    "O1": (None, True, None, None, "dynamic"),
    "O2": (torch.float16, False, True, True, "dynamic"),
    "O3": (torch.float16, False, False, False, 1.0),
}


class _LossScaler:
    """apex/amp/scaler.py's update rule."""

    def __init__(self, loss_scale: Any, min_loss_scale: Optional[float], max_loss_scale: float) -> None:
        self.dynamic = loss_scale == "dynamic"
        self.scale = min(max_loss_scale, 2.0 ** 16) if self.dynamic else float(loss_scale)
        self.min_loss_scale, self.max_loss_scale = min_loss_scale, max_loss_scale
        self.unskipped = 0

    def update(self, overflow: bool) -> bool:
        """Whether the step is to be skipped."""
        skip = overflow and self.dynamic
        if skip:
            self.scale = max(self.min_loss_scale, self.scale / 2.0) if self.min_loss_scale else self.scale / 2.0
            self.unskipped = 0
        else:
            self.unskipped += 1
        if self.dynamic and self.unskipped == 2000:
            self.scale = min(self.max_loss_scale, self.scale * 2.0)
            self.unskipped = 0
        return skip


class _State:
    enabled: Optional[bool] = None  # None until initialize
    verbosity = 1
    scalers: List[_LossScaler] = []
    scaled_grads: "set[int]" = set()  # ids of the optimizers whose gradients a delay_unscale left scaled


_state = _State()


def _cast(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() and value.dtype != torch.float64 else value
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_cast(v, dtype) for v in value)
    if isinstance(value, dict):  # a copy of the same type: transformers' ModelOutput keeps its attributes
        out = copy.copy(value)
        for key, item in value.items():
            out[key] = _cast(item, dtype)
        return out
    return value


def _device_type(model: torch.nn.Module) -> str:
    for tensor in itertools.chain(model.parameters(), model.buffers()):
        return tensor.device.type
    return "cpu"


def _wrap_forward(model: torch.nn.Module, autocast: Optional[torch.dtype], inputs: Optional[torch.dtype],
                  outputs: Optional[torch.dtype]) -> None:
    forward: Callable[..., Any] = model.forward

    @functools.wraps(forward)
    def amp_forward(*args: Any, **kwargs: Any) -> Any:
        if inputs is not None:
            args, kwargs = _cast(args, inputs), _cast(kwargs, inputs)
        if autocast is not None:
            with torch.autocast(device_type=_device_type(model), dtype=autocast):
                out = forward(*args, **kwargs)
        else:
            out = forward(*args, **kwargs)
        return out if outputs is None else _cast(out, outputs)
    model.forward = amp_forward


def _to_half(model: torch.nn.Module, dtype: torch.dtype, keep_batchnorm_fp32: bool) -> None:
    for module in model.modules():
        if keep_batchnorm_fp32 and isinstance(module, torch.nn.modules.batchnorm._BatchNorm) and module.affine:
            continue
        for param in module.parameters(recurse=False):
            param.data = param.data.to(dtype)
        for name, buffer in module.named_buffers(recurse=False):
            if buffer.is_floating_point():
                setattr(module, name, buffer.to(dtype))


def initialize(models: Any, optimizers: Any = None, enabled: bool = True, opt_level: str = "O1",
               cast_model_type: Optional[torch.dtype] = None, patch_torch_functions: Optional[bool] = None,
               keep_batchnorm_fp32: Optional[bool] = None, master_weights: Optional[bool] = None,
               loss_scale: Any = None, cast_model_outputs: Optional[torch.dtype] = None, num_losses: int = 1,
               verbosity: int = 1, min_loss_scale: Optional[float] = None,
               max_loss_scale: float = 2.0 ** 24) -> Any:
    """apex.amp.initialize: returns models and optimizers in the form they were passed."""
    _state.enabled, _state.verbosity = enabled, verbosity
    _state.scaled_grads = set()
    if not enabled:
        return models if optimizers is None else (models, optimizers)
    if opt_level not in _OPT_LEVELS:
        raise RuntimeError(f"Unexpected optimization level {opt_level}. Options are 'O0', 'O1', 'O2', 'O3'. Note "
                           "that in `O0`, `O1`, etc., the prefix O is the letter O, not the number zero.")
    cast, patch, keep_bn, masters, scale = _OPT_LEVELS[opt_level]
    cast = cast if cast_model_type is None else cast_model_type
    patch = patch if patch_torch_functions is None else patch_torch_functions
    keep_bn = keep_bn if keep_batchnorm_fp32 is None else keep_batchnorm_fp32
    masters = masters if master_weights is None else master_weights
    scale = scale if loss_scale is None else loss_scale
    if cast is not None and cast != torch.float32 and cast not in _HALF_TYPES:
        raise NotImplementedError(f"apex_amp_npu: cast_model_type {cast} (float16 and bfloat16 are provided)")
    for model in models if isinstance(models, list) else [models]:
        if cast in _HALF_TYPES and masters:
            _wrap_forward(model, cast, None, cast_model_outputs or torch.float32)
        elif cast in _HALF_TYPES:
            _to_half(model, cast, bool(keep_bn))
            _wrap_forward(model, None, cast, cast_model_outputs or torch.float32)
        elif patch:
            _wrap_forward(model, torch.float16, None, cast_model_outputs or torch.float32)
        elif cast_model_outputs is not None:
            _wrap_forward(model, None, None, cast_model_outputs)
    for optimizer in [] if optimizers is None else optimizers if isinstance(optimizers, list) else [optimizers]:
        optimizer.load_state_dict(optimizer.state_dict())  # recasts state kept for float16 parameters, as apex
    _state.scalers = [_LossScaler(scale, min_loss_scale, max_loss_scale) for _ in range(num_losses)]
    return models if optimizers is None else (models, optimizers)


def _params(optimizer: torch.optim.Optimizer) -> Iterator[Tensor]:
    for group in optimizer.param_groups:
        yield from group["params"]


def _unscale(grads: List[Tensor], scale: float) -> bool:
    """Divides the gradients by scale in place; whether any has an inf or NaN (one sync per device)."""
    groups: Dict[Tuple[torch.device, torch.dtype], List[Tensor]] = defaultdict(list)
    for grad in grads:
        groups[(grad.device, grad.dtype)].append(grad)
    found = []
    for (device, _), group in groups.items():
        found_inf = torch.zeros(1, device=device)
        torch._amp_foreach_non_finite_check_and_unscale_(group, found_inf, torch.full((1,), 1.0 / scale, device=device))
        found.append(found_inf)
    return any(bool(flag.item()) for flag in found)


def _skip_next_step(optimizer: torch.optim.Optimizer, loss_id: int, scale: float) -> None:
    if getattr(optimizer, "_amp_npu_skipping", False):
        return
    own = "step" in vars(optimizer)
    step = optimizer.step

    def skip_step(closure: Any = None) -> None:
        if closure is not None:
            raise RuntimeError("Currently, Amp does not support closure use with optimizers.")
        if _state.verbosity:
            print(f"Gradient overflow.  Skipping step, loss scaler {loss_id} reducing loss scale to {scale}")
        if own:
            setattr(optimizer, "step", step)
        else:
            del optimizer.step
        optimizer._amp_npu_skipping = False  # type: ignore[attr-defined]
    setattr(optimizer, "step", skip_step)  # for one call, as apex: the instance attribute hides the method
    optimizer._amp_npu_skipping = True  # type: ignore[attr-defined]


@contextlib.contextmanager
def scale_loss(loss: Tensor, optimizers: Any, loss_id: int = 0, model: Any = None, delay_unscale: bool = False,
               delay_overflow_check: bool = False) -> Iterator[Tensor]:
    """apex.amp.scale_loss: yields loss.float() * the loss scale; on exit the gradients are unscaled and an
    overflow skips the next optimizer.step()."""
    if _state.enabled is None:
        raise RuntimeError("Invoked 'with amp.scale_loss`, but internal Amp state has not been initialized.  "
                           "model, optimizer = amp.initialize(model, optimizer, opt_level=...) must be called "
                           "before `with amp.scale_loss`.")
    if not _state.enabled:
        yield loss
        return
    opts = [optimizers] if isinstance(optimizers, torch.optim.Optimizer) else list(optimizers)
    scaler = _state.scalers[loss_id]
    if not scaler.dynamic and scaler.scale == 1.0:
        yield loss.float()
        return
    set_aside: List[Tuple[Tensor, Tensor]] = []
    if not delay_unscale:
        for opt in opts:
            if id(opt) not in _state.scaled_grads:
                for p in _params(opt):
                    if p.grad is not None:
                        set_aside.append((p, p.grad))
                        p.grad = None
    yield loss.float() * scaler.scale
    if delay_unscale:
        _state.scaled_grads.update(id(opt) for opt in opts)
        return
    grads = [p.grad for opt in opts for p in _params(opt) if p.grad is not None]
    overflow = _unscale(grads, scaler.scale) if grads else False
    for p, old in set_aside:
        p.grad = old if p.grad is None else p.grad.add_(old)
    _state.scaled_grads.difference_update(id(opt) for opt in opts)
    if not delay_overflow_check and scaler.update(overflow):
        for opt in opts:
            _skip_next_step(opt, loss_id, scaler.scale)


def master_params(optimizer: torch.optim.Optimizer) -> Iterator[Tensor]:
    """The parameters the optimizer steps (float32 under every opt level but O3)."""
    return _params(optimizer)


def state_dict(destination: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = OrderedDict() if destination is None else destination
    for idx, scaler in enumerate(_state.scalers):
        out[f"loss_scaler{idx}"] = {"loss_scale": scaler.scale, "unskipped": scaler.unskipped}
    return out


def load_state_dict(state: Dict[str, Any]) -> None:
    unexpected = [key for key in state if "loss_scaler" not in key]
    if unexpected:
        raise RuntimeError("Error(s) in loading state_dict. Unexpected key(s) in state_dict: "
                           + ", ".join(f'"{key}"' for key in unexpected) + ". ")
    for scaler, key in zip(_state.scalers, state):
        scaler.scale, scaler.unskipped = state[key]["loss_scale"], state[key]["unskipped"]
