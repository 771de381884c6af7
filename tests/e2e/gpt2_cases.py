"""A tiny Hugging Face transformers GPT-2 (random init) captured with banjia.capture for compare's
tests: one training step in float32 as the reference, the same step in a lower precision or another
summation order (noise), or with one planted bug. Each bug names the module it was planted in, so a
test's expected answer comes from here, never from banjia's output."""
from __future__ import annotations

import contextlib

import pytest
import torch
import torch.nn.functional as F

import banjia

pytest.importorskip("transformers")
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402
from transformers.pytorch_utils import Conv1D  # noqa: E402

BUG_LAYER = 1

# bug -> the module the bug was planted in (the root of the subtree where the first wrong value is made)
PLANTED = {
    "ln_eps": f"transformer.h.{BUG_LAYER}.ln_2",
    "ln_eps_subtle": f"transformer.h.{BUG_LAYER}.ln_2",
    "attn_scale_subtle": f"transformer.h.{BUG_LAYER}.attn",
    "attn_scale": f"transformer.h.{BUG_LAYER}.attn",
    "residual_dropped": f"transformer.h.{BUG_LAYER}",
    "residual_doubled": f"transformer.h.{BUG_LAYER}",
    "positions_shifted": "transformer.wpe",
    "grad_scale": f"transformer.h.{BUG_LAYER}.mlp.c_proj",
}


class _ScaleGrad(torch.autograd.Function):
    """Identity forward; the gradient it passes back is scaled (a backward-only bug)."""

    @staticmethod
    def forward(ctx, x, factor):  # type: ignore[override]
        ctx.factor = factor
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):  # type: ignore[override]
        return g * ctx.factor, None


def _split_k_conv1d(self, x):
    """Conv1D as two half-length matmuls summed: the same math with another summation order."""
    k = self.weight.shape[0] // 2
    y = x[..., :k] @ self.weight[:k] + x[..., k:] @ self.weight[k:]
    return y + self.bias


def _linear_conv1d(self, x):
    """Conv1D through F.linear instead of addmm."""
    return F.linear(x, self.weight.t(), self.bias)


def _plant(model, bug):
    block = model.transformer.h[BUG_LAYER]
    if bug == "ln_eps":
        block.ln_2.eps = 3e-3
    elif bug == "ln_eps_subtle":
        block.ln_2.eps = 3e-5
    elif bug == "attn_scale":
        block.attn.scaling = 1.0  # instead of head_dim ** -0.5
    elif bug == "attn_scale_subtle":
        block.attn.scaling *= 1.5
    elif bug in ("residual_dropped", "residual_doubled"):
        ln_1, attn, ln_2, mlp = block.ln_1, block.attn, block.ln_2, block.mlp
        keep = 0.0 if bug == "residual_dropped" else 2.0

        def forward(hidden_states, past_key_values=None, attention_mask=None, *args, **kwargs):
            a, _ = attn(ln_1(hidden_states), attention_mask=attention_mask)
            h = hidden_states + a
            return keep * h + mlp(ln_2(h))
        block.forward = forward
    elif bug == "grad_scale":
        proj = block.mlp.c_proj
        inner = proj.forward
        proj.forward = lambda x: _ScaleGrad.apply(inner(x), 1.1)
    elif bug not in (None, "positions_shifted"):
        raise ValueError(bug)


def make_model(width=64, layers=3, heads=4, seq=32, vocab=128, bug=None, summation=None):
    torch.manual_seed(0)
    config = GPT2Config(n_embd=width, n_layer=layers, n_head=heads, n_positions=seq + 1, vocab_size=vocab,
                        attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0, bos_token_id=None, eos_token_id=None,
                        loss_type="ForCausalLM", attn_implementation="eager")
    model = GPT2LMHeadModel(config)
    _plant(model, bug)
    if summation is not None:
        patched = {"split_k": _split_k_conv1d, "linear": _linear_conv1d}[summation]
        for m in model.modules():
            if isinstance(m, Conv1D):
                m.forward = patched.__get__(m)
    return model


def capture_gpt2(out, *, mode="tensors", precision=None, bug=None, threads=None, matmul=None, summation=None,
                 inputs=False, width=64, layers=3, seq=32, batch=4):
    """One training step of the tiny GPT-2 into `out`. precision: None (float32), "bfloat16" or
    "float16" autocast; threads / matmul: torch.set_num_threads / set_float32_matmul_precision for the
    run; summation: "split_k" or "linear" (Conv1D computed another way)."""
    saved = torch.get_num_threads(), torch.get_float32_matmul_precision()
    try:
        if threads:
            torch.set_num_threads(threads)
        if matmul:
            torch.set_float32_matmul_precision(matmul)
        model = make_model(width=width, layers=layers, seq=seq, bug=bug, summation=summation)
        gen = torch.Generator().manual_seed(1)
        ids = torch.randint(0, model.config.vocab_size, (batch, seq), generator=gen)
        positions = torch.arange(seq).expand(batch, seq) + (1 if bug == "positions_shifted" else 0)
        amp = (torch.autocast("cpu", dtype=getattr(torch, precision)) if precision
               else contextlib.nullcontext())
        with banjia.capture(model, out, mode=mode, inputs=inputs):
            with amp:
                loss = model(input_ids=ids, position_ids=positions, labels=ids).loss
            loss.backward()
    finally:
        torch.set_num_threads(saved[0])
        torch.set_float32_matmul_precision(saved[1])
    return out
