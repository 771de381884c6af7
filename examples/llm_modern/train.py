#!/usr/bin/env python3
"""A tiny GPT pretraining loop in the style of today's LLM trainers, for CUDA GPUs.

Launched by torchrun, one process per GPU:

    torchrun --nproc-per-node 2 train.py --steps 3

What it uses, as modern trainers do: the launcher's environment (LOCAL_RANK, WORLD_SIZE) and an NCCL
process group with `device_id`, a CUDA device per process, DDP, `torch.compile` of the model, bf16
autocast when the GPU supports it, TF32 on Ampere and newer (a compute-capability check), fused
AdamW on CUDA, gradient-norm clipping, synthetic token data from a seeded generator, and a memory
report from the CUDA caching allocator. Exits 0 when the loss fell and every rank saw the same loss.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(c, dim=2)
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, dim: int, heads: int, layers: int, context: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, context, dim))
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        x = self.embed(idx) + self.pos[:, : idx.size(1)]
        for block in self.blocks:
            x = block(x)
        return F.cross_entropy(self.head(x).flatten(0, 1), targets.flatten())


def batches(vocab: int, context: int, batch: int, rank: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    # A learnable sequence (each token predicts the next), sliced differently on every rank.
    data = (torch.arange(8192) * 7 % vocab).to(torch.int64)
    gen = torch.Generator().manual_seed(1234 + rank)
    while True:
        ix = torch.randint(len(data) - context - 1, (batch,), generator=gen)
        x = torch.stack([data[i : i + context] for i in ix])
        yield x, torch.stack([data[i + 1 : i + 1 + context] for i in ix])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--compile", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    dist.init_process_group(backend="nccl", device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    torch.cuda.manual_seed(0)

    # TF32 matmuls on Ampere (compute capability 8.0) and newer.
    if torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8:
        torch.backends.cuda.matmul.allow_tf32 = True
    amp_dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16

    vocab, context = 64, 32
    model = TinyGPT(vocab, dim=64, heads=4, layers=2, context=context).to(device)
    model = DDP(model, device_ids=[local_rank])
    step_model = torch.compile(model) if args.compile else model
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, fused=device.type == "cuda")

    data = batches(vocab, context, args.batch, rank)
    losses = []
    for step in range(args.steps):
        x, y = next(data)
        x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", dtype=amp_dtype):
            loss = step_model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        mean = loss.detach().float()
        dist.all_reduce(mean)
        losses.append(mean.item() / world)
        if rank == 0:
            print(f"step {step}: loss {losses[-1]:.4f}")

    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated(device)
    if rank == 0:
        print(f"peak device memory {peak / 2**20:.1f} MiB on {torch.cuda.get_device_name(device)}")
    # Every rank computed the same mean losses; a learnable sequence makes the loss fall.
    mine = torch.tensor(losses, device=device)
    first = mine.clone()
    dist.broadcast(first, src=0)
    same = torch.equal(mine, first)
    fell = losses[-1] < losses[0]
    dist.destroy_process_group()
    return 0 if same and fell else 1


if __name__ == "__main__":
    raise SystemExit(main())
