"""LSTM and GRU cells on the npu device.

ATen's recurrent layers call the fused cell ops `_thnn_fused_lstm_cell` and `_thnn_fused_gru_cell`
for CUDA, XPU and PrivateUse1 inputs (aten/src/ATen/native/RNN.cpp, LSTMCell and GRUCell), and torch
has kernels for them on CUDA only. Here they are registered for the AutogradPrivateUse1 key as
compositions of elementwise ops, so autograd differentiates the composition and the fused backward
ops are never needed. The outputs match the CUDA kernels: (hy, cy, workspace) for LSTM with the
activated gates i, f, g, o as workspace, (hy, workspace) for GRU with r, z, n, hx and the hidden
part of n as workspace.
"""
from __future__ import annotations

from typing import Any

import torch

_libraries: list[Any] = []


def _with_bias(gates: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    return gates if bias is None else gates + bias


def lstm_cell(input_gates: torch.Tensor, hidden_gates: torch.Tensor, cx: torch.Tensor,
              input_bias: torch.Tensor | None = None,
              hidden_bias: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gates = _with_bias(_with_bias(input_gates, input_bias) + hidden_gates, hidden_bias)
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = o * cy.tanh()
    return hy, cy, torch.cat([i, f, g, o], 1)


def gru_cell(input_gates: torch.Tensor, hidden_gates: torch.Tensor, hx: torch.Tensor,
             input_bias: torch.Tensor | None = None,
             hidden_bias: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    ir, iz, in_ = _with_bias(input_gates, input_bias).chunk(3, 1)
    hr, hz, hn = _with_bias(hidden_gates, hidden_bias).chunk(3, 1)
    r = (ir + hr).sigmoid()
    z = (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    hy = n + z * (hx - n)
    return hy, torch.cat([r, z, n, hx, hn], 1)


def install() -> None:
    if _libraries:
        return
    make_library: Any = torch.library.Library
    library = make_library("aten", "IMPL")
    library.impl("_thnn_fused_lstm_cell", lstm_cell, "AutogradPrivateUse1")
    library.impl("_thnn_fused_gru_cell", gru_cell, "AutogradPrivateUse1")
    _libraries.append(library)
