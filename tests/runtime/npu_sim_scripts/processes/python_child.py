"""A Python child process of a simulated program: python_child.py ok|cuda|crash SEED."""
import sys

import torch
import torch_npu  # noqa: F401

mode, seed = sys.argv[1], int(sys.argv[2])
x = torch.randn(3, 3, generator=torch.Generator().manual_seed(seed))
y = (x.npu() @ x.npu()).tanh()
if mode == "cuda":
    torch.cuda.synchronize()
if mode == "crash":
    raise ValueError(f"child {seed} gave up")
print(" ".join(f"{v:.6f}" for v in y.cpu().flatten().tolist()))
