"""A small Llama-style decoder built on the CUDA kernel libraries LLM code bases use.

flash-attn for attention (causal `flash_attn_func` on padded batches, `flash_attn_varlen_func` on packed
sequences), its rotary embedding and its fused RMSNorm (the Triton one), xformers' fused SwiGLU MLP and
flash-attn's fused cross-entropy. Grouped-query attention: fewer key/value heads than query heads.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
from flash_attn import flash_attn_func, flash_attn_varlen_func
from flash_attn.layers.rotary import apply_rotary_emb
from flash_attn.losses.cross_entropy import CrossEntropyLoss
from flash_attn.ops.triton.layer_norm import RMSNorm
from xformers.ops import SwiGLU


@dataclass
class Config:
    vocab_size: int = 96
    dim: int = 64
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int = 2
    ffn_hidden: int = 96
    max_seq_len: int = 64
    rope_base: float = 10000.0
    norm_eps: float = 1e-5


def rope_tables(cfg: Config, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin of shape (max_seq_len, head_dim / 2), as flash-attn's apply_rotary_emb takes them."""
    head_dim = cfg.dim // cfg.n_heads
    inv_freq = 1.0 / cfg.rope_base ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim)
    freqs = torch.outer(torch.arange(cfg.max_seq_len, device=device).float(), inv_freq)
    return freqs.cos(), freqs.sin()


class Attention(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads = cfg.n_heads, cfg.n_kv_heads
        self.head_dim = cfg.dim // cfg.n_heads
        self.wq = nn.Linear(cfg.dim, cfg.n_heads * self.head_dim, bias=False)
        self.wkv = nn.Linear(cfg.dim, 2 * cfg.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(cfg.n_heads * self.head_dim, cfg.dim, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                cu_seqlens: torch.Tensor | None = None, max_seqlen: int = 0) -> torch.Tensor:
        # x: (batch, seqlen, dim), or (total_tokens, dim) for packed sequences with cu_seqlens
        lead = x.shape[:-1]
        q = self.wq(x).view(*lead, self.n_heads, self.head_dim)
        k, v = self.wkv(x).view(*lead, 2, self.n_kv_heads, self.head_dim).unbind(-3)
        if cu_seqlens is None:
            q = apply_rotary_emb(q, cos, sin)
            k = apply_rotary_emb(k, cos, sin)
            out = flash_attn_func(q, k, v, causal=True)
        else:
            q = apply_rotary_emb(q, cos, sin, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen)
            k = apply_rotary_emb(k, cos, sin, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen)
            out = flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen, causal=True)
        return self.wo(out.reshape(*lead, -1))


class Block(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.dim, eps=cfg.norm_eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.dim, eps=cfg.norm_eps)
        self.mlp = SwiGLU(cfg.dim, cfg.ffn_hidden, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                cu_seqlens: torch.Tensor | None = None, max_seqlen: int = 0) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), cos, sin, cu_seqlens, max_seqlen)
        return x + self.mlp(self.mlp_norm(x))


class Transformer(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.dim, eps=cfg.norm_eps)
        self.lm_head = nn.Linear(cfg.dim, cfg.vocab_size, bias=False)
        self.loss_fn = CrossEntropyLoss(ignore_index=-100)
        self.register_buffer("cos", torch.empty(0), persistent=False)
        self.register_buffer("sin", torch.empty(0), persistent=False)

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor, cu_seqlens: torch.Tensor | None = None,
                max_seqlen: int = 0) -> torch.Tensor:
        if self.cos.numel() == 0 or self.cos.device != tokens.device:
            self.cos, self.sin = rope_tables(self.cfg, tokens.device)
        h = self.embed(tokens)
        for layer in self.layers:
            h = layer(h, self.cos, self.sin, cu_seqlens, max_seqlen)
        logits = self.lm_head(self.norm(h))
        return self.loss_fn(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
