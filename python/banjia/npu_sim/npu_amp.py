"""`torch.npu.amp` (= `torch_npu.npu.amp`): autocast, GradScaler, custom_fwd, custom_bwd for "npu".

The names are torch_npu's (Ascend/pytorch : torch_npu/npu/amp/__init__.py, `__all__`); each is
torch.amp's device-generic implementation with the device type fixed to "npu".
"""
from __future__ import annotations

import functools
from typing import Any

import torch

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(torch.amp.autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.float16,
                 cache_enabled: bool = True) -> None:
        super().__init__("npu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(torch.amp.grad_scaler.GradScaler):
    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True,
                 **kwargs: Any) -> None:
        super().__init__("npu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


custom_fwd = functools.partial(torch.amp.custom_fwd, device_type="npu")
custom_bwd = functools.partial(torch.amp.custom_bwd, device_type="npu")
