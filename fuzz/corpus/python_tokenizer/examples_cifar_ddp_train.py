#!/usr/bin/env python3
"""Train a small ResNet-style classifier on CIFAR-10 with DDP and AMP.

Written for CUDA GPUs: this docstring mentions cuda and nccl, and must stay as it is.
"""
from __future__ import annotations

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast
from torch.nn.parallel import DistributedDataParallel as DDP

from model import Net
from utils.dist import barrier, local_rank, world_size


def parse_args():
    p = argparse.ArgumentParser(description="CIFAR-10 DDP training (cuda)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--backend", default="nccl", choices=["gloo", "nccl"])
    p.add_argument("--resume", default="")
    return p.parse_args()


def setup(args):
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0,1,2,3")
    os.environ["NCCL_IB_DISABLE"] = "1"
    dist.init_process_group(backend="nccl", init_method="env://")
    torch.cuda.set_device(local_rank())
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    return torch.device("cuda", local_rank())


def load_checkpoint(model, path):
    # Checkpoints were saved on GPU 0; map them to this process's GPU.
    state = torch.load(path, map_location=f"cuda:{local_rank()}")
    model.load_state_dict(state["model"])


def train_epoch(model, loader, optimizer, scaler, device):
    model.train()
    total = 0.0
    for images, labels in loader:
        images = images.cuda(non_blocking=True).to(memory_format=torch.channels_last)
        labels = labels.to(device)
        optimizer.zero_grad(set_to_none=True)
        with autocast(dtype=torch.float16):
            loss = F.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()  # syncs every step
    torch.cuda.synchronize()
    return total / max(1, len(loader))


def main():
    args = parse_args()
    device = setup(args)
    model = Net().cuda()
    model = model.to(memory_format=torch.channels_last)
    if args.resume:
        load_checkpoint(model, args.resume)
    model = DDP(model, device_ids=[local_rank()])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = GradScaler()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,))), batch_size=args.batch_size)
    for epoch in range(args.epochs):
        start = time.time()
        loss = train_epoch(model, loader, optimizer, scaler, device)
        if local_rank() == 0:
            mem = torch.cuda.max_memory_allocated() / 2**20
            print(f"epoch {epoch} loss {loss:.3f} {time.time() - start:.1f}s {mem:.0f} MiB on cuda")
    barrier()
    if world_size() > 1 and args.backend == "nccl":
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
