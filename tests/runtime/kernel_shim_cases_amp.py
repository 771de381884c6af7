"""apex_amp_npu against the apex.amp stand-in: the same small model trained a few steps by each, under each opt
level: the losses, the gradient norms seen by clipping over amp.master_params, the parameters the optimizer
steps and the loss scaler's state agree. The stand-in casts as apex does (patched torch functions for O1,
a float16 model with float32 master weights for O2); the shim casts with torch.autocast."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F

from kernel_shim_harness import case, import_paths, seeded

import_paths()
import apex_amp_npu  # noqa: E402
from apex import amp as apex_amp  # noqa: E402  (the stand-in)

# float16 matmuls, summed in different orders by the two casting schemes
LOOSE = (2e-2, 2e-3)


def _model(device: torch.device) -> torch.nn.Module:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.LayerNorm(16),
                                torch.nn.Linear(16, 4))
    return model.to(device)


def _train(amp: Any, device: torch.device, opt_level: str, steps: int = 3, micro_batches: int = 1,
           overflow_at: Optional[int] = None, **init: Any) -> Tuple[List[float], List[float], List[torch.Tensor],
                                                                   Dict[str, Any], List[torch.dtype]]:
    model = _model(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model, optimizer = amp.initialize(model, optimizer, opt_level=opt_level, verbosity=0, **init)
    x, = seeded((micro_batches, 6, 8), seed=3)
    y = torch.randint(0, 4, (micro_batches, 6), generator=torch.Generator().manual_seed(4))
    losses, norms, out_dtypes = [], [], []
    for step in range(steps):
        optimizer.zero_grad()
        for micro in range(micro_batches):
            out = model(x[micro].to(device))
            out_dtypes.append(out.dtype)
            loss = F.cross_entropy(out, y[micro].to(device))
            if step == overflow_at:
                loss = loss * float("inf")
            losses.append(float(loss.detach()))
            with amp.scale_loss(loss, optimizer) as scaled:
                scaled.backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(list(amp.master_params(optimizer)), 1e9)))
        optimizer.step()
    params = [p.detach().float().cpu() for p in amp.master_params(optimizer)]
    return losses, norms, params, dict(amp.state_dict()), out_dtypes


def _compare(device: torch.device, opt_level: str, **kwargs: Any) -> None:
    try:
        ref = _train(apex_amp, torch.device("cpu"), opt_level, **kwargs)
    finally:
        apex_amp._deactivate()
    got = _train(apex_amp_npu, device, opt_level, **kwargs)
    rtol, atol = LOOSE
    for what, r, g in zip(("losses", "gradient norms"), ref[:2], got[:2]):
        assert len(r) == len(g), (what, r, g)
        for a, b in zip(g, r):
            same = math.isnan(a) if math.isnan(b) else a == b if math.isinf(b) else abs(a - b) <= atol + rtol * abs(b)
            assert same, (opt_level, what, g, r)
    for i, (g, r) in enumerate(zip(got[2], ref[2], strict=True)):
        torch.testing.assert_close(g, r, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{opt_level} parameter {i}: {m}")
    assert got[3] == ref[3], (opt_level, got[3], ref[3])  # the loss scale and the count of clean steps, exactly
    # The dtype the model's outputs reach the program in: apex's O2/O3 cast them to float32; under O1 apex returns
    # what its patched functions gave (float16 from a final Linear), the shim float32 (see its docstring).
    expected = [torch.float32] * len(ref[4]) if opt_level == "O1" else ref[4]
    assert got[4] == expected, (opt_level, got[4], ref[4])


@case
def apex_amp_o1(device: torch.device) -> None:
    _compare(device, "O1")


@case
def apex_amp_o2_master_weights(device: torch.device) -> None:
    _compare(device, "O2")


@case
def apex_amp_o3_and_o0(device: torch.device) -> None:
    _compare(device, "O3")
    _compare(device, "O0")
    _compare(device, "O3", loss_scale="dynamic")  # float16 gradients unscaled


@case
def apex_amp_overflow_skips_the_step_and_halves_the_scale(device: torch.device) -> None:
    for level in ("O1", "O2"):
        _compare(device, level, steps=4, overflow_at=1)
    _compare(device, "O1", steps=3, overflow_at=0, loss_scale=128.0)  # a static scale never skips


@case
def apex_amp_gradient_accumulation(device: torch.device) -> None:
    _compare(device, "O1", micro_batches=3)
    _compare(device, "O2", micro_batches=2, overflow_at=2)


@case
def apex_amp_state_dict_round_trip(device: torch.device) -> None:
    _train(apex_amp_npu, device, "O1", num_losses=2, min_loss_scale=16.0, max_loss_scale=2.0 ** 17)
    state = apex_amp_npu.state_dict()
    assert state == {"loss_scaler0": {"loss_scale": 2.0 ** 16, "unskipped": 3},
                     "loss_scaler1": {"loss_scale": 2.0 ** 16, "unskipped": 0}}
    apex_amp_npu.load_state_dict({"loss_scaler0": {"loss_scale": 64.0, "unskipped": 1999},
                                  "loss_scaler1": {"loss_scale": 32.0, "unskipped": 5}})
    model = _model(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.ones(2, 8, device=device)).float().sum()
    with apex_amp_npu.scale_loss(loss, optimizer) as scaled:
        assert float(scaled.detach()) == float(loss.detach()) * 64.0
        scaled.backward()
    # the 2000th clean step doubles the scale (apex's scale_window), within max_loss_scale
    assert apex_amp_npu.state_dict()["loss_scaler0"] == {"loss_scale": 128.0, "unskipped": 0}
    assert apex_amp_npu.amp is apex_amp_npu
