#!/usr/bin/env python3
"""Train a small MLP classifier; device and process-group backend come from the command line.

CUDA original in the style of pytorch/examples (imagenet/main.py): `--device` defaults to cuda and
`--dist-backend` to nccl. One process (world size 1) over a tcp:// rendezvous on a free port.
"""
import argparse
import socket
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_args():
    p = argparse.ArgumentParser(description="MLP training on random data")
    p.add_argument("--device", default="cuda", help="device to train on")
    p.add_argument("--dist-backend", default="nccl", type=str, help="distributed backend")
    p.add_argument("--dist-url", default=f"tcp://127.0.0.1:{free_port()}", type=str)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--lr", type=float, default=0.1)
    return p.parse_args()


def main():
    args = parse_args()
    dist.init_process_group(backend=args.dist_backend, init_method=args.dist_url, world_size=1, rank=0)
    device = torch.device(args.device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    inputs = torch.randn(256, 20)
    targets = (inputs[:, :4].argmax(dim=1))  # a learnable rule
    first = last = None
    for step in range(args.steps):
        x, y = inputs.to(device), targets.to(device)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        dist.all_reduce(loss.detach())  # world size 1: the sum is the loss itself
        first = loss.item() if first is None else first
        last = loss.item()
    print(f"loss {first:.3f} -> {last:.3f} on {device} ({args.dist_backend})")
    dist.destroy_process_group()
    return 0 if last < first else 1


if __name__ == "__main__":
    sys.exit(main())
