#!/usr/bin/env python3
"""Train, save a checkpoint, load it back with map_location=f"cuda:{rank}" and resume.

The loaded model and optimizer must continue exactly where the saved ones were.
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn


def train(model, optimizer, x, y, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", rank)
    torch.manual_seed(0)
    x, y = torch.randn(64, 8).to(device), torch.randn(64, 2).to(device)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    train(model, optimizer, x, y, 5)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ckpt.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": 5}, path)
        checkpoint = torch.load(path, map_location=f"cuda:{rank}")
    resumed = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
    resumed.load_state_dict(checkpoint["model"])
    resumed_opt = torch.optim.AdamW(resumed.parameters(), lr=1e-2)
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    for name, tensor in checkpoint["model"].items():
        if tensor.device != device:
            print(f"{name} was loaded on {tensor.device}, not {device}")
            return 1
    original_loss = train(model, optimizer, x, y, 3)
    resumed_loss = train(resumed, resumed_opt, x, y, 3)
    print(f"step {checkpoint['step'] + 3}: original {original_loss:.6f}, resumed {resumed_loss:.6f}")
    return 0 if original_loss == resumed_loss else 1


if __name__ == "__main__":
    sys.exit(main())
