"""Two ranks over hccl: DDP the ImageNet-example way (each rank sets its device and trains on its
own half of every batch), every collective, DTensor and FSDP2 (fully_shard) on
init_device_mesh("npu", (2,)). Each rank saves what it ended with as OUT/rank{r}.pt.

python ranks.py OUT PORT    starts both ranks with torch.multiprocessing.spawn
torchrun --nproc-per-node 2 ranks.py OUT    is started as one rank by torchrun
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS, BATCH = 3, 8


def data(step):
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(BATCH, 6, generator=g), torch.randint(0, 3, (BATCH,), generator=g)


def fsdp2_data(step):
    g = torch.Generator().manual_seed(200 + step)
    return torch.randn(BATCH, 6, generator=g), torch.randn(BATCH, 2, generator=g)


def check_dtensor(mesh, rank):
    full = torch.arange(32.0).view(8, 4)
    sharded = distribute_tensor(full.to("npu"), mesh, [Shard(0)])
    local = sharded.to_local()
    assert local.device == torch.device("npu", rank), local.device
    assert torch.equal(local.cpu(), full[rank * 4:(rank + 1) * 4])
    assert torch.equal(sharded.redistribute(mesh, [Replicate()]).to_local().cpu(), full)
    assert torch.equal((sharded * 2).sum(0).full_tensor().cpu(), (full * 2).sum(0))  # a partial sum, reduced


def train_fsdp2(mesh, rank, world_size):
    """Each rank trains on its part of every batch; returns its losses and the full parameters."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    assert all(p.device == torch.device("npu", rank) for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
    part, losses = BATCH // world_size, []
    for step in range(STEPS):
        x, y = fsdp2_data(step)
        loss = nn.functional.mse_loss(model(x[rank * part:(rank + 1) * part].to("npu")),
                                      y[rank * part:(rank + 1) * part].to("npu"))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses, {name: p.full_tensor().cpu() for name, p in model.named_parameters()}


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
    mesh = init_device_mesh("npu", (world_size,))
    check_dtensor(mesh, rank)
    fsdp2_losses, fsdp2_parameters = train_fsdp2(mesh, rank, world_size)
    torch.save({"facts": facts, "collectives": collectives,
                "parameters": {k: v.cpu() for k, v in model.state_dict().items()},
                "fsdp2_losses": fsdp2_losses, "fsdp2_parameters": fsdp2_parameters},
               os.path.join(out, f"rank{rank}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1]
    if "LOCAL_RANK" in os.environ:  # started by torchrun
        main(int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"]), out, "env://")
    else:
        mp.spawn(main, args=(2, out, f"tcp://127.0.0.1:{sys.argv[2]}"), nprocs=2)
