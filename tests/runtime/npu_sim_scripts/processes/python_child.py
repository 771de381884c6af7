"""A Python child process of a simulated program: python_child.py ok|cuda|crash|accelerator SEED.

In accelerator mode it imports no torch_npu: under --autoload, torch_npu is loaded as torch loads
an installed one, and the device comes from torch.accelerator."""
import sys

import torch

mode, seed = sys.argv[1], int(sys.argv[2])
if mode != "accelerator":
    import torch_npu  # noqa: F401
device = torch.accelerator.current_accelerator()
x = torch.randn(3, 3, generator=torch.Generator().manual_seed(seed))
y = (x.to(device) @ x.to(device)).tanh()
if mode == "cuda":
    torch.cuda.synchronize()
if mode == "crash":
    raise ValueError(f"child {seed} gave up")
print(" ".join(f"{v:.6f}" for v in y.cpu().flatten().tolist()))
