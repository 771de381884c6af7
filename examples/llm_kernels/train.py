#!/usr/bin/env python3
"""Three training steps of the small decoder in model.py on synthetic data, for a CUDA GPU.

    python train.py [--steps 3]

Each step trains on a padded batch (causal flash attention) and on a batch of packed documents of
different lengths (variable-length flash attention, no attention across documents), with apex's fused
Adam. Seeded: the same weights and data on every run. Prints "step N: loss X" per step.
"""
from __future__ import annotations

import argparse

import torch

from model import Config, Transformer


def make_optimizer(model: torch.nn.Module, lr: float) -> torch.optim.Optimizer:
    from apex.optimizers import FusedAdam as Adam  # apex is optional in many trainers: imported here

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    return Adam([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                lr=lr, betas=(0.9, 0.95), eps=1e-8)


def padded_batch(cfg: Config, g: torch.Generator, batch: int, seqlen: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Sequences that repeat a random prefix, so that the next token is learnable."""
    period = torch.randint(3, 7, (batch, 1), generator=g)
    base = torch.randint(0, cfg.vocab_size, (batch, 8), generator=g)
    pos = torch.arange(seqlen + 1)[None, :] % period
    seq = torch.gather(base, 1, pos)
    return seq[:, :-1], seq[:, 1:]


def packed_batch(cfg: Config, g: torch.Generator, lengths: list[int]) -> tuple[torch.Tensor, ...]:
    """Documents of different lengths packed into one row; the last token of a document predicts nothing."""
    tokens, targets = [], []
    for n in lengths:
        x, y = padded_batch(cfg, g, 1, n)
        y = y.clone()
        y[0, -1] = -100
        tokens.append(x[0])
        targets.append(y[0])
    cu_seqlens = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32)
    return torch.cat(tokens), torch.cat(targets), cu_seqlens, max(lengths)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    cfg = Config()
    model = Transformer(cfg).to(device)
    optimizer = make_optimizer(model, lr=3e-3)
    g = torch.Generator().manual_seed(1)

    for step in range(1, args.steps + 1):
        x, y = padded_batch(cfg, g, batch=4, seqlen=32)
        tokens, targets, cu_seqlens, max_seqlen = packed_batch(cfg, g, [11, 29, 17, 7])
        loss = model(x.to(device), y.to(device))
        loss = loss + model(tokens.to(device), targets.to(device), cu_seqlens.to(device), max_seqlen)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {step}: loss {loss.item():.6f}", flush=True)


if __name__ == "__main__":
    main()
