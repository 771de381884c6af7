"""Children that fail while the program carries on: a CUDA use in a process of
torch.multiprocessing.spawn (whose failure the program swallows) and a Python subprocess that
crashes (whose exit status the program ignores)."""
import os
import subprocess
import sys

import torch
import torch.multiprocessing as mp
import torch_npu  # noqa: F401


def worker(rank):
    torch.ones(2, device="npu").sum()
    torch.cuda.synchronize()


if __name__ == "__main__":
    print(torch.ones(2, device="npu").sum().item())
    try:
        mp.spawn(worker, nprocs=1)
    except Exception as error:  # the program does not care
        print("spawn failed:", type(error).__name__)
    child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_child.py")
    subprocess.run([sys.executable, child, "crash", "3"], capture_output=True)
    print("program done")
