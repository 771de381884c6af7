#!/usr/bin/env python3
"""DistributedDataParallel in one process: nccl process group of world size 1, MASTER_ADDR and
MASTER_PORT set by the script, the model wrapped with device_ids=[local_rank], a DistributedSampler,
and an all_reduce of the epoch loss.
"""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def setup():
    if "MASTER_PORT" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            os.environ["MASTER_PORT"] = str(s.getsockname()[1])
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    os.environ.setdefault("LOCAL_RANK", "0")
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank


def main():
    local_rank = setup()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1)).cuda(local_rank)
    ddp_model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(ddp_model.parameters(), lr=1e-2)
    data = TensorDataset(torch.randn(256, 16), torch.randn(256, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    epoch_losses = []
    for epoch in range(3):
        sampler.set_epoch(epoch)
        total = torch.zeros(1, device=f"cuda:{local_rank}")
        for x, y in loader:
            x, y = x.cuda(local_rank, non_blocking=True), y.cuda(local_rank, non_blocking=True)
            loss = nn.functional.mse_loss(ddp_model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.detach()
        dist.all_reduce(total, op=dist.ReduceOp.SUM)
        epoch_losses.append(total.item() / (len(loader) * dist.get_world_size()))
        if dist.get_rank() == 0:
            print(f"epoch {epoch} loss {epoch_losses[-1]:.4f}")
    dist.barrier()
    dist.destroy_process_group()
    return 0 if epoch_losses[-1] < epoch_losses[0] else 1


if __name__ == "__main__":
    sys.exit(main())
