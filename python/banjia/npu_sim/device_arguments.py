"""`"npu"` without an index names the current device in Tensor.to, torch.tensor and torch.as_tensor.

ATen's `to` fills a missing device index from the device guard (`ensure_has_index`), and torch's
Python device guard for PrivateUse1 always answers index 0, so `x.to("npu")` would land on npu:0
after `torch.npu.set_device(1)`; on a real NPU it lands on the current device. Factories
(`torch.zeros(2, device="npu")`) pass the device on without an index and need nothing here. These
wrappers are traced by Dynamo like the program's code: they read the current device from
banjia.npu_sim.devices without calling into it (its module is on Dynamo's skip list).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import torch

from banjia.npu_sim import devices


def _with_index(value: Any) -> Any:
    current = devices._current[0]
    if current == 0:
        return value  # what ATen fills in
    if isinstance(value, str) and value == "npu":
        return f"npu:{current}"
    if isinstance(value, torch.device) and value.type == "npu" and value.index is None:
        return torch.device("npu", current)
    return value


def _device_at(position: int, original: Callable[..., Any]) -> Callable[..., Any]:
    """original with an index given to an npu device passed as `device` or at position."""

    @functools.wraps(original)
    def with_current_device(*args: Any, **kwargs: Any) -> Any:
        if len(args) > position:
            args = (*args[:position], _with_index(args[position]), *args[position + 1:])
        if "device" in kwargs:
            kwargs["device"] = _with_index(kwargs["device"])
        return original(*args, **kwargs)

    return with_current_device


def install() -> None:
    setattr(torch.Tensor, "to", _device_at(1, torch.Tensor.to))  # (self, device, ...)
    setattr(torch, "as_tensor", _device_at(2, torch.as_tensor))  # (data, dtype, device)
    setattr(torch, "tensor", _device_at(99, torch.tensor))  # device is keyword-only
