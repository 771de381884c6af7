#!/usr/bin/env python3
"""Regression with the common `'cuda' if torch.cuda.is_available() else 'cpu'` device choice.

CUDA original: on a machine without CUDA it silently trains on the CPU.
"""
import sys

import torch
import torch.nn as nn

device = 'cuda' if torch.cuda.is_available() else 'cpu'


def main():
    torch.manual_seed(0)
    true_w = torch.tensor([[2.0], [-3.0], [0.5]])
    x = torch.randn(128, 3)
    y = x @ true_w + 0.01 * torch.randn(128, 1)
    model = nn.Linear(3, 1).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    x, y = x.to(device), y.to(device)
    for _ in range(100):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    error = (model.weight.detach().cpu().t() - true_w).abs().max().item()
    print(f"device {device}: loss {loss.item():.5f}, max weight error {error:.3f}")
    return 0 if error < 0.05 else 1


if __name__ == '__main__':
    sys.exit(main())
