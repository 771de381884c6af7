"""DDP over hccl at world size 2, the ImageNet-example way: each rank sets its device, trains a few
steps on its own half of every batch and saves what it ended with as OUT/rank{r}.pt.

python ddp_train.py OUT PORT    starts both ranks with torch.multiprocessing.spawn
torchrun --nproc-per-node 2 ddp_train.py OUT    is started as one rank by torchrun
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS, BATCH = 3, 8


def data(step):
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(BATCH, 6, generator=g), torch.randint(0, 3, (BATCH,), generator=g)


def main(rank, world_size, out, init_method):
    torch.npu.set_device(rank)
    dist.init_process_group("hccl", init_method=init_method, rank=rank, world_size=world_size)
    device = torch.device("npu")  # the current device: npu:rank
    facts = {"device_count": torch.npu.device_count(), "accelerator_count": torch.accelerator.device_count(),
             "current": torch.npu.current_device(), "accelerator_current": torch.accelerator.current_device_index()}
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
    facts["parameter_device"] = str(next(model.parameters()).device)
    ddp = DDP(model, device_ids=[rank])
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    half = BATCH // world_size
    for step in range(STEPS):
        x, y = data(step)
        x, y = x[rank * half:(rank + 1) * half].to(device), y[rank * half:(rank + 1) * half].to(device)
        optimizer.zero_grad()
        nn.functional.cross_entropy(ddp(x), y).backward()
        optimizer.step()
    collectives = {}
    t = torch.arange(4.0, device=device) + 10 * rank
    dist.all_reduce(t)
    collectives["all_reduce"] = t.cpu()
    t = torch.arange(4.0, device=device) + 10 * rank
    dist.broadcast(t, src=1)
    collectives["broadcast"] = t.cpu()
    gathered = [torch.zeros(2, device=device) for _ in range(world_size)]
    dist.all_gather(gathered, torch.full((2,), float(rank), device=device))
    collectives["all_gather"] = torch.stack(gathered).cpu()
    into = torch.zeros(2 * world_size, device=device)
    dist.all_gather_into_tensor(into, torch.full((2,), float(rank + 1), device=device))
    collectives["all_gather_into_tensor"] = into.cpu()
    scattered = torch.zeros(2, device=device)
    dist.reduce_scatter_tensor(scattered, torch.arange(4.0, device=device) * (rank + 1))
    collectives["reduce_scatter_tensor"] = scattered.cpu()
    listed = torch.zeros(2, device=device)
    dist.reduce_scatter(listed, list((torch.arange(4.0, device=device) * (rank + 1)).chunk(world_size)))
    collectives["reduce_scatter"] = listed.cpu()
    t = torch.full((3,), float(rank + 2), device=device)
    dist.reduce(t, dst=0, op=dist.ReduceOp.PRODUCT)
    collectives["reduce"] = t.cpu()
    t = torch.full((3,), float(rank + 2), device=device)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    collectives["all_reduce_avg"] = t.cpu()
    exchanged = torch.zeros(world_size, device=device)
    dist.all_to_all_single(exchanged, torch.arange(float(world_size), device=device) + 10 * rank)
    collectives["all_to_all_single"] = exchanged.cpu()
    dist.barrier()
    torch.save({"facts": facts, "collectives": collectives,
                "parameters": {k: v.cpu() for k, v in model.state_dict().items()}},
               os.path.join(out, f"rank{rank}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1]
    if "LOCAL_RANK" in os.environ:  # started by torchrun
        main(int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"]), out, "env://")
    else:
        mp.spawn(main, args=(2, out, f"tcp://127.0.0.1:{sys.argv[2]}"), nprocs=2)
