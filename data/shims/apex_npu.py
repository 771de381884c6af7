"""apex_npu: NVIDIA apex's fused optimizers and norms on Ascend NPUs (torch_npu) and on any other torch device.

banjia migrate wrote this file into the migrated program and pointed the program's apex imports here. The
program's owner owns it from now on: read it, edit it, check it in. It imports nothing of banjia.

Each name keeps apex's signature and semantics (NVIDIA/apex: apex/optimizers/fused_adam.py, fused_lamb.py,
fused_sgd.py with csrc/multi_tensor_adam.cu, multi_tensor_lamb.cu, multi_tensor_sgd_kernel.cu, and
apex/normalization/fused_layer_norm.py, apex/contrib/layer_norm/layer_norm.py with
csrc/layer_norm/ln_api.cpp). Mapping, where the tensors are on an `npu` device:

- FusedAdam -> torch_npu.optim.NpuFusedAdamW (adam_w_mode=True, apex's default: decoupled weight decay) or
  torch_npu.optim.NpuFusedAdam (adam_w_mode=False: L2), when every parameter is float32 and bias_correction
  is on. apex keeps the moments in float32 for float16/bfloat16 parameters, and torch_npu's fused optimizers
  keep them in the parameter's dtype (and take no bfloat16), so other dtypes, and bias_correction=False,
  which torch_npu does not offer, run apex's update with torch ops on the device.
- FusedSGD -> torch_npu.optim.NpuFusedSGD (same update as apex with wd_after_momentum=False), same dtype rule.
- FusedLAMB: apex's update with torch ops on every device. torch_npu.optim.NpuFusedLamb computes a different
  LAMB (no bias correction, trust ratio on every tensor, the weight norm clamped to 10), so it is not used.
- FusedRMSNorm, fused_rms_norm_affine, FusedRMSNormAffineFunction -> torch_npu.npu_rms_norm. FusedLayerNorm,
  fused_layer_norm_affine, FusedLayerNormAffineFunction and apex.contrib's FastLayerNorm, FastLayerNormFN ->
  torch.nn.functional.layer_norm, which torch_npu implements natively (the Function classes are called with
  `.apply`, as their callers do, and differentiate through torch ops).
On any other device everything computes with plain torch.

Differences, by design: torch_npu's fused optimizers copy all gradients into one buffer at their first step
and read that buffer afterwards, so on the NPU path zero_grad() zeroes the gradients in place instead of
setting them to None (apex's set_grad_none); a gradient replaced or set to None elsewhere (for example by
model.zero_grad()) is noticed at the next step, which then rebuilds the torch_npu optimizer keeping its
state. FusedLAMB does not overwrite .grad with the update as apex's kernel does. capturable=True and
master_weights=True (CUDA graphs, apex's fp16 master weights) raise NotImplementedError.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F
from torch.nn import init
from torch.nn.parameter import Parameter
from torch.optim.optimizer import Optimizer, required

__all__ = [
    "FusedAdam", "FusedLAMB", "FusedSGD", "FusedLayerNorm", "FusedRMSNorm", "fused_layer_norm_affine",
    "fused_rms_norm_affine", "FusedLayerNormAffineFunction", "FusedRMSNormAffineFunction", "FastLayerNorm",
    "FastLayerNormFN",
]

Tensor = torch.Tensor


def _torch_npu() -> Any:
    import torch_npu  # imported only for npu tensors: the module also runs where there is no torch_npu
    return torch_npu


def _with_grads(opt: Optimizer) -> List[Tensor]:
    return [p for group in opt.param_groups for p in group["params"] if p.grad is not None]


def _all_npu_float32(params: List[Tensor]) -> bool:
    return bool(params) and all(p.device.type == "npu" and p.dtype == torch.float32 for p in params)


class _NpuFused:
    """Runs an optimizer's steps with a torch_npu fused optimizer over the same parameters and state."""

    def __init__(self, make: Callable[[List[Dict[str, Any]]], Optimizer], keys: Sequence[str]) -> None:
        self.make, self.keys = make, keys
        self.inner: Optional[Optimizer] = None
        self.grads: List[Tuple[Optional[Tensor], int]] = []

    def _seen(self, owner: Optimizer) -> List[Tuple[Optional[Tensor], int]]:
        return [(p.grad, p.grad.data_ptr() if p.grad is not None else 0)
                for group in owner.param_groups for p in group["params"]]

    def step(self, owner: Optimizer) -> None:
        seen = self._seen(owner)
        if self.inner is None or len(seen) != len(self.grads) or any(
                a is not b or pa != pb for (a, pa), (b, pb) in zip(seen, self.grads)):
            # New, replaced or dropped gradients: the fused optimizer would read its stale gradient buffer.
            groups = [{"params": g["params"], **{k: g[k] for k in self.keys}} for g in owner.param_groups]
            self.inner = self.make(groups)
            self.inner.state = owner.state  # one state: the owner's state_dict() holds the moments
        for mine, theirs in zip(self.inner.param_groups, owner.param_groups):
            mine.update({k: theirs[k] for k in self.keys})  # learning-rate schedulers change the owner's groups
        self.inner.step()
        self.grads = self._seen(owner)

    def zero_grad(self, owner: Optimizer) -> None:
        for p in _with_grads(owner):
            grad = p.grad
            assert grad is not None
            grad.detach_()
            grad.zero_()


class _ApexOptimizer(Optimizer):
    """What apex's fused optimizers share: zero_grad drops the gradients where set_grad_none says so, and
    zeroes them in place while a torch_npu fused optimizer (_npu) reads their buffers."""

    set_grad_none: bool
    _npu: Optional[_NpuFused] = None

    def zero_grad(self, set_to_none: Optional[bool] = None) -> None:
        if self._npu is not None and self._npu.inner is not None:
            self._npu.zero_grad(self)
        elif self.set_grad_none:
            for p in _with_grads(self):
                p.grad = None
        else:
            super().zero_grad()


class FusedAdam(_ApexOptimizer):
    """apex.optimizers.FusedAdam: AdamW by default (adam_w_mode=True), Adam with L2 otherwise."""

    _npu: _NpuFused

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, bias_correction: bool = True,
                 betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, adam_w_mode: bool = True,
                 weight_decay: float = 0.0, amsgrad: bool = False, set_grad_none: bool = True,
                 capturable: bool = False, master_weights: bool = False) -> None:
        if amsgrad:
            raise RuntimeError("FusedAdam does not support the AMSGrad variant.")
        if capturable or master_weights:
            raise NotImplementedError("apex_npu: FusedAdam capturable/master_weights (CUDA graphs, fp16 master "
                                      "weights) are not available")
        defaults = dict(lr=lr, bias_correction=bias_correction, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)
        self.adam_w_mode = 1 if adam_w_mode else 0
        self.set_grad_none = set_grad_none
        self._npu = _NpuFused(self._npu_optimizer, ("lr", "betas", "eps", "weight_decay"))

    def _npu_optimizer(self, groups: List[Dict[str, Any]]) -> Optimizer:
        torch_npu = _torch_npu()
        fused: Optimizer = (torch_npu.optim.NpuFusedAdamW(groups) if self.adam_w_mode
                            else torch_npu.optim.NpuFusedAdam(groups))
        return fused

    @torch.no_grad()
    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            group["step"] = group.get("step", 0) + 1  # apex counts steps per group
        params = _with_grads(self)
        if _all_npu_float32(params) and all(g["bias_correction"] for g in self.param_groups):
            self._npu.step(self)
            return loss
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            step, decay = group["step"], group["weight_decay"]
            bc1 = 1 - beta1 ** step if group["bias_correction"] else 1.0
            bc2 = 1 - beta2 ** step if group["bias_correction"] else 1.0
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p, dtype=torch.float32)
                    state["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float32)
                m, v = state["exp_avg"], state["exp_avg_sq"]
                g, w = p.grad.float(), p.float()
                if not self.adam_w_mode:
                    g = g + decay * w
                m.mul_(beta1).add_(g, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                update = (m / bc1) / ((v / bc2).sqrt() + group["eps"])
                if self.adam_w_mode:
                    update = update + decay * w
                p.copy_(w - group["lr"] * update)
        return loss


class FusedSGD(_ApexOptimizer):
    """apex.optimizers.FusedSGD: SGD with momentum; the first step sets the momentum buffer to the gradient."""

    _npu: _NpuFused

    def __init__(self, params: Iterable[Any], lr: Any = required, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, wd_after_momentum: bool = False,
                 materialize_master_grads: bool = True, set_grad_none: bool = False) -> None:
        for what, value in (("lr", 0.0 if lr is required else lr), ("momentum", momentum),
                            ("weight_decay", weight_decay)):
            if value < 0.0:
                raise ValueError(f"apex_npu: FusedSGD {what} must not be negative, got {value}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("apex_npu: FusedSGD nesterov needs momentum > 0 and dampening 0")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)
        super().__init__(params, defaults)
        self.wd_after_momentum = wd_after_momentum
        self.materialize_master_grads = materialize_master_grads
        self.most_recent_scale = 1.0
        self.scale_set_by_backward = False
        self.set_grad_none = set_grad_none
        self._npu = _NpuFused(self._npu_optimizer, ("lr", "momentum", "dampening", "weight_decay", "nesterov"))

    def _npu_optimizer(self, groups: List[Dict[str, Any]]) -> Optimizer:
        torch_npu = _torch_npu()
        fused: Optimizer = torch_npu.optim.NpuFusedSGD(groups)
        return fused

    @torch.no_grad()
    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if _all_npu_float32(_with_grads(self)) and not self.wd_after_momentum:
            self._npu.step(self)
            return loss
        for group in self.param_groups:
            decay, momentum, lr = group["weight_decay"], group["momentum"], group["lr"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, w = p.grad.float() / self.most_recent_scale, p.float()
                if decay != 0 and not self.wd_after_momentum:
                    g = g + decay * w
                if momentum != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        buf = g  # apex's first run: the buffer starts as the gradient
                        state["momentum_buffer"] = g.to(p.dtype, copy=True)
                    else:
                        buf = state["momentum_buffer"].float() * momentum + (1 - group["dampening"]) * g
                        state["momentum_buffer"].copy_(buf)
                    g = g + momentum * buf if group["nesterov"] else buf
                if decay != 0 and self.wd_after_momentum:
                    g = g + decay * w
                p.copy_(w - lr * g)
        self.most_recent_scale = 1.0
        return loss


class FusedLAMB(_ApexOptimizer):
    """apex.optimizers.FusedLAMB: the global gradient norm clipped to max_grad_norm, Adam moments with bias
    correction, the update scaled per tensor by ||w|| / ||update|| where weight_decay != 0 (or use_nvlamb)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, bias_correction: bool = True,
                 betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-6, weight_decay: float = 0.01,
                 amsgrad: bool = False, adam_w_mode: bool = True, grad_averaging: bool = True,
                 set_grad_none: bool = True, max_grad_norm: float = 1.0, use_nvlamb: bool = False) -> None:
        if amsgrad:
            raise RuntimeError("FusedLAMB does not support the AMSGrad variant.")
        defaults = dict(lr=lr, bias_correction=bias_correction, betas=betas, eps=eps, weight_decay=weight_decay,
                        grad_averaging=grad_averaging, max_grad_norm=max_grad_norm)
        super().__init__(params, defaults)
        self.adam_w_mode = 1 if adam_w_mode else 0
        self.set_grad_none = set_grad_none
        self.use_nvlamb = use_nvlamb

    @torch.no_grad()
    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        grads = [p.grad.float() for p in _with_grads(self) if p.grad is not None]
        if not grads:
            return loss
        global_norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
        max_norm = self.defaults["max_grad_norm"]
        clip = torch.where(global_norm > max_norm, global_norm / max_norm, torch.ones_like(global_norm))
        for group in self.param_groups:
            group["step"] = group.get("step", 0) + 1
            beta1, beta2 = group["betas"]
            step, decay = group["step"], group["weight_decay"]
            bc1 = 1 - beta1 ** step if group["bias_correction"] else 1.0
            bc2 = 1 - beta2 ** step if group["bias_correction"] else 1.0
            beta3 = 1 - beta1 if group["grad_averaging"] else 1.0
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                w = p.float()
                g = p.grad.float() / clip
                if not self.adam_w_mode:
                    g = g + decay * w
                m = state["exp_avg"].float().mul_(beta1).add_(g, alpha=beta3)
                v = state["exp_avg_sq"].float().mul_(beta2).addcmul_(g, g, value=1 - beta2)
                state["exp_avg"].copy_(m)
                state["exp_avg_sq"].copy_(v)
                update = (m / bc1) / ((v / bc2).sqrt() + group["eps"])
                if self.adam_w_mode:
                    update = update + decay * w
                ratio: Union[float, Tensor] = group["lr"]
                if self.use_nvlamb or decay != 0.0:
                    w_norm, u_norm = torch.linalg.vector_norm(w), torch.linalg.vector_norm(update)
                    ok = (w_norm != 0) & (u_norm != 0)
                    ratio = torch.where(ok, group["lr"] * w_norm / torch.where(ok, u_norm, 1.0), group["lr"])
                p.copy_(w - ratio * update)
        return loss


def _autocast(x: Tensor, *tensors: Optional[Tensor]) -> Tuple[Optional[Tensor], ...]:
    """apex casts its arguments to the autocast dtype when autocast is on, then runs without autocast."""
    kind = x.device.type
    try:
        dtype: Optional[torch.dtype] = torch.get_autocast_dtype(kind) if torch.is_autocast_enabled(kind) else None
    except (TypeError, AttributeError):  # torch < 2.4: the device module answers (torch.npu with torch_npu)
        module: Any = getattr(torch, kind, None)
        on = hasattr(module, "get_autocast_dtype") and module.is_autocast_enabled()
        dtype = module.get_autocast_dtype() if on else None
    if dtype is None:
        return (x, *tensors)
    return tuple(t.to(dtype) if t is not None and t.is_floating_point() else t for t in (x, *tensors))


def _layer_norm(x: Tensor, shape: Sequence[int], weight: Optional[Tensor], bias: Optional[Tensor],
                eps: float) -> Tensor:
    """apex computes in float32 and returns the input's dtype, also with float32 weights on half inputs."""
    if weight is not None and weight.dtype != x.dtype:
        return F.layer_norm(x.float(), shape, weight.float(), bias.float() if bias is not None else None,
                            eps).to(x.dtype)
    return F.layer_norm(x, shape, weight, bias, eps)


def _rms_norm(x: Tensor, shape: Sequence[int], weight: Optional[Tensor], eps: float) -> Tensor:
    if x.device.type == "npu":
        gamma = weight if weight is not None else torch.ones(shape, dtype=x.dtype, device=x.device)
        torch_npu = _torch_npu()
        if gamma.dtype != x.dtype:
            y: Tensor = torch_npu.npu_rms_norm(x.float(), gamma.float(), eps)[0]
            return y.to(x.dtype)
        y = torch_npu.npu_rms_norm(x, gamma, eps)[0]
        return y
    dims = tuple(range(-len(shape), 0))
    xf = x.float()
    y = xf * torch.rsqrt(xf.square().mean(dims, keepdim=True) + eps)
    return (y * weight.float() if weight is not None else y).to(x.dtype)


def fused_layer_norm_affine(input: Tensor, weight: Tensor, bias: Tensor, normalized_shape: Sequence[int],
                            eps: float = 1e-6, memory_efficient: bool = False) -> Tensor:
    x, w, b = _autocast(input, weight, bias)
    assert x is not None
    with torch.autocast(x.device.type, enabled=False):
        return _layer_norm(x, normalized_shape, w, b, eps)


def fused_rms_norm_affine(input: Tensor, weight: Tensor, normalized_shape: Sequence[int], eps: float = 1e-6,
                          memory_efficient: bool = False) -> Tensor:
    x, w = _autocast(input, weight)
    assert x is not None
    with torch.autocast(x.device.type, enabled=False):
        return _rms_norm(x, normalized_shape, w, eps)


def _shape(normalized_shape: Union[int, Sequence[int]]) -> torch.Size:
    if isinstance(normalized_shape, (int, numbers.Integral)):
        return torch.Size((int(normalized_shape),))
    return torch.Size(normalized_shape)


class _FusedNorm(torch.nn.Module):
    """apex's norm modules: parameters of normalized_shape, weight 1 (and bias 0) when elementwise_affine."""

    has_bias = True

    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = 1e-5,
                 elementwise_affine: bool = True, memory_efficient: bool = False) -> None:
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine, self.memory_efficient = eps, elementwise_affine, memory_efficient
        shape, affine = self.normalized_shape, elementwise_affine
        self.weight = Parameter(torch.ones(shape)) if affine else None
        self.bias = Parameter(torch.zeros(shape)) if affine and self.has_bias else None

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class FusedLayerNorm(_FusedNorm):
    """apex.normalization.FusedLayerNorm: LayerNorm over the trailing normalized_shape dimensions."""

    def forward(self, input: Tensor) -> Tensor:
        x, w, b = _autocast(input, self.weight, self.bias)
        assert x is not None
        with torch.autocast(x.device.type, enabled=False):
            return _layer_norm(x, self.normalized_shape, w, b, self.eps)


class FusedRMSNorm(_FusedNorm):
    """apex.normalization.FusedRMSNorm: x / sqrt(mean(x^2) + eps) * weight over normalized_shape."""

    has_bias = False

    def forward(self, input: Tensor) -> Tensor:
        x, w = _autocast(input, self.weight)
        assert x is not None
        with torch.autocast(x.device.type, enabled=False):
            return _rms_norm(x, self.normalized_shape, w, self.eps)


class FusedLayerNormAffineFunction:
    """apex.normalization.fused_layer_norm.FusedLayerNormAffineFunction as its callers use it, `.apply(...)`,
    with autograd by torch ops. No autocast cast, as apex's Function (the module and the function above cast).
    forward keeps the arguments of apex's forward after ctx: callers inspect it for memory_efficient."""

    @staticmethod
    def forward(input: Tensor, weight: Tensor, bias: Tensor, normalized_shape: Sequence[int], eps: float,
                memory_efficient: bool = False) -> Tensor:
        return _layer_norm(input, normalized_shape, weight, bias, eps)

    apply = forward


class FusedRMSNormAffineFunction:
    """apex.normalization.fused_layer_norm.FusedRMSNormAffineFunction, `.apply(...)`, as the class above."""

    @staticmethod
    def forward(input: Tensor, weight: Tensor, normalized_shape: Sequence[int], eps: float,
                memory_efficient: bool = False) -> Tensor:
        return _rms_norm(input, normalized_shape, weight, eps)

    apply = forward


class FastLayerNormFN:
    """apex.contrib.layer_norm.layer_norm.FastLayerNormFN, `.apply(x, gamma, beta, epsilon)`: LayerNorm over
    the last dimension (gamma.numel() wide) in float32, output in gamma's dtype (apex's ln_fwd: otype = wtype)."""

    @staticmethod
    def forward(x: Tensor, gamma: Tensor, beta: Tensor, epsilon: float, memory_efficient: bool = False) -> Tensor:
        return _layer_norm(x.float(), (gamma.numel(),), gamma, beta, epsilon).to(gamma.dtype)

    apply = forward


class FastLayerNorm(torch.nn.Module):
    """apex.contrib.layer_norm.FastLayerNorm(hidden_size, eps, memory_efficient): weight 1, bias 0;
    the arguments cast to the autocast dtype when autocast is on, as apex."""

    def __init__(self, hidden_size: int, eps: float = 1e-5, memory_efficient: bool = False) -> None:
        super().__init__()
        self.epsilon, self.memory_efficient = eps, memory_efficient
        self.weight = Parameter(torch.empty(hidden_size))
        self.bias = Parameter(torch.empty(hidden_size))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.ones_(self.weight)
        init.zeros_(self.bias)

    def forward(self, x: Tensor) -> Tensor:
        x_, w, b = _autocast(x, self.weight, self.bias)
        assert x_ is not None and w is not None and b is not None
        with torch.autocast(x_.device.type, enabled=False):
            return FastLayerNormFN.apply(x_, w, b, self.epsilon, self.memory_efficient)
