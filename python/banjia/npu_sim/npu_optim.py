"""`torch_npu.optim` on the simulated npu: NpuFusedAdam, NpuFusedAdamW, NpuFusedSGD, NpuFusedLamb.

Source: Ascend/pytorch torch_npu/optim/npu_fused_{optim_base,adam,adamw,sgd,lamb}.py. torch_npu's
fused optimizers copy the parameters and gradients of each dtype into one combined tensor at the
first step and update the combined tensors; the updates are per element, so the simulator applies
the same formulas parameter by parameter (each op an npu op). What the combining implies and a
program can observe is kept:
- only float32 and float16 parameters are accepted (TypeError otherwise, at the first step);
- the parameters are fixed at the first step: those without a gradient then are never updated;
- zero_grad() keeps the gradients (set_to_none=False by default; True raises ValueError);
- Adam, AdamW and SGD call the step's closure under torch.no_grad() (the base class's step is
  decorated so), NpuFusedLamb under torch.enable_grad().
What it does not reproduce: the combined storages themselves (a gradient replaced after the first
step is read from the parameter here, from the stale combined buffer on torch_npu).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import torch
from torch.optim.optimizer import Optimizer, required

__all__ = ["NpuFusedAdam", "NpuFusedAdamW", "NpuFusedSGD", "NpuFusedLamb"]

Params = Iterable[torch.Tensor] | Iterable[dict[str, Any]]
Closure = Callable[[], Any] | None


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'torch_npu.optim' has no attribute {name!r} (not provided by the simulator: "
                         f"banjia npu_sim provides {', '.join(__all__)})")


def _check_adam_args(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class _NpuFusedOptimizer(Optimizer):
    """What torch_npu's NpuFusedOptimizerBase adds to torch's Optimizer."""

    def __init__(self, params: Params, defaults: dict[str, Any]) -> None:
        super().__init__(params, defaults)
        self._combined: set[int] | None = None  # ids of the parameters combined at the first step

    def _combine(self) -> None:
        if self._combined is not None:
            return
        chosen = [p for group in self.param_groups for p in group["params"] if p.grad is not None]
        for p in chosen:
            if p.dtype not in (torch.float32, torch.float16):
                raise TypeError(f"Fused optimizer's parameters must be either float32 or float16, but received "
                                f"{p.dtype}")
            if p.grad is not None and p.grad.is_sparse:
                raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
        if chosen:  # as torch_npu: nothing is fixed while no parameter has a gradient
            self._combined = {id(p) for p in chosen}

    def _members(self, group: dict[str, Any]) -> list[torch.Tensor]:
        combined = self._combined or set()
        return [p for p in group["params"] if id(p) in combined and p.grad is not None]

    def _group_step(self, group: dict[str, Any], params: list[torch.Tensor]) -> None:
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure: Closure = None) -> Any:
        loss = closure() if closure is not None else None
        self._combine()
        for group in self.param_groups:
            self._group_step(group, self._members(group))
        return loss

    @torch.no_grad()
    def zero_grad(self, set_to_none: bool = False) -> None:
        if set_to_none:
            raise ValueError("set_to_none is not supported in fused optimizers")
        super().zero_grad(set_to_none=False)

    @torch.no_grad()
    def clip_grad_norm_fused_(self, max_norm: float, norm_type: float = 2.0) -> torch.Tensor:
        """Clips the combined gradients in place by their total norm and returns the norm."""
        self._combine()
        grads = [p.grad for group in self.param_groups for p in self._members(group) if p.grad is not None]
        if not grads:
            return torch.tensor(0.0)
        norm_type = float(norm_type)
        if norm_type == math.inf:
            total = torch.stack([g.float().abs().max() for g in grads]).max()
        else:
            total = torch.stack([g.float().abs().pow(norm_type).sum() for g in grads]).sum().pow(1.0 / norm_type)
        coefficient = float(max_norm) / (total + 1e-6)
        if coefficient < 1:
            for g in grads:
                g.mul_(coefficient.to(g.dtype))
        return total


def _adam_update(p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """One Adam step of p with bias correction (npu_fused_adam.py / npu_fused_adamw.py)."""
    amsgrad = group["amsgrad"]
    if not state:
        state["step"] = 0
        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        if amsgrad:
            state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
    beta1, beta2 = group["betas"]
    state["step"] += 1
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1 ** state["step"]
    bias_correction2 = 1 - beta2 ** state["step"]
    second = exp_avg_sq
    if amsgrad:
        torch.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
        second = state["max_exp_avg_sq"]
    denom = (second.sqrt() / math.sqrt(bias_correction2)).add_(group["eps"])
    p.addcdiv_(exp_avg, denom, value=-group["lr"] / bias_correction1)


class NpuFusedAdam(_NpuFusedOptimizer):
    """Adam with L2 weight decay added to the gradient (torch.optim.Adam's update)."""

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad))

    def _group_step(self, group: dict[str, Any], params: list[torch.Tensor]) -> None:
        for p in params:
            grad = p.grad
            assert grad is not None
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            _adam_update(p, grad, self.state[p], group)


class NpuFusedAdamW(_NpuFusedOptimizer):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay first (torch.optim.AdamW's update)."""

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad))

    def _group_step(self, group: dict[str, Any], params: list[torch.Tensor]) -> None:
        for p in params:
            assert p.grad is not None
            p.mul_(1 - group["lr"] * group["weight_decay"])
            _adam_update(p, p.grad, self.state[p], group)


class NpuFusedSGD(_NpuFusedOptimizer):
    """SGD with momentum, dampening, Nesterov and L2 weight decay (torch.optim.SGD's update)."""

    def __init__(self, params: Params, lr: Any = required, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or not math.isclose(dampening, 0.0, abs_tol=1e-15)):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    def _group_step(self, group: dict[str, Any], params: list[torch.Tensor]) -> None:
        momentum = group["momentum"]
        for p in params:
            grad = p.grad
            assert grad is not None
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:  # the first update uses the (weight-decayed) gradient as the buffer
                    buf = state["momentum_buffer"] = torch.clone(grad).detach()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            p.add_(grad, alpha=-group["lr"])


class NpuFusedLamb(_NpuFusedOptimizer):
    """LAMB as torch_npu writes it (npu_fused_lamb.py, after cybertronai/pytorch-lamb), per parameter:
        g' = g / G if G > 1, G the global gradient norm when use_global_grad_norm, else 1
        m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2      (no bias correction)
        u = m / (sqrt(v) + eps) + weight_decay * p
        r = min(||p||, 10) / ||u||, or 1 when either norm is 0 or adam=True
        p -= lr * r * u
    """

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-6, weight_decay: float = 0, adam: bool = False,
                 use_global_grad_norm: bool = False) -> None:
        _check_adam_args(lr, betas, eps, 0.0)  # torch_npu does not check LAMB's weight_decay
        self.adam = adam
        self.use_global_grad_norm = use_global_grad_norm
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure: Closure = None) -> Any:
        self._combine()  # torch_npu combines before running the closure
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        grads = [p.grad for group in self.param_groups for p in self._members(group) if p.grad is not None]
        norm = torch.stack([g.float().pow(2).sum() for g in grads]).sum().sqrt() \
            if self.use_global_grad_norm and grads else None
        for group in self.param_groups:
            self._lamb_step(group, self._members(group), norm)
        return loss

    def _lamb_step(self, group: dict[str, Any], params: list[torch.Tensor], norm: torch.Tensor | None) -> None:
        beta1, beta2 = group["betas"]
        for p in params:
            grad = p.grad
            assert grad is not None
            if norm is not None and norm > 1:
                grad = grad / norm.to(grad.dtype)
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            state["step"] += 1
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            update = exp_avg / exp_avg_sq.sqrt().add(group["eps"])
            if group["weight_decay"] != 0:
                update.add_(p, alpha=group["weight_decay"])
            if self.adam:
                p.add_(update, alpha=-group["lr"])
                continue
            weight_norm = p.pow(2).sum().sqrt().clamp(0, 10)
            update_norm = update.pow(2).sum().sqrt()
            ratio = torch.where((weight_norm == 0) | (update_norm == 0), torch.ones_like(weight_norm),
                                weight_norm / update_norm)
            p.addcmul_(update, ratio, value=-group["lr"])
