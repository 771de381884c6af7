"""Distributed helpers."""
import os

import torch.cuda as tc
import torch.distributed as dist
from torch.cuda import nvtx


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def world_size() -> int:
    return dist.get_world_size() if dist.is_initialized() else 1


def barrier():
    if dist.is_nccl_available() and dist.is_initialized():
        nvtx.range_push("barrier")
        dist.barrier()
        tc.synchronize()
        nvtx.range_pop()


def describe() -> str:
    blocking = os.getenv("CUDA_LAUNCH_BLOCKING", "0")
    return f"{tc.device_count()} devices, blocking={blocking}"
