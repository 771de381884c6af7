"""The hccl process group of the simulator in one process (world size 1): collectives, DDP, DTensor
and FSDP2 on init_device_mesh("npu", (1,)), each compared with the same computation on the CPU."""
import os
import socket

import torch
import torch.distributed as dist
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
from torch.nn.parallel import DistributedDataParallel as DDP

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    os.environ["MASTER_PORT"] = str(s.getsockname()[1])
os.environ["MASTER_ADDR"] = "127.0.0.1"
dist.init_process_group("hccl", rank=0, world_size=1)
assert dist.get_backend() == "hccl" and dist.get_world_size() == 1 and dist.is_hccl_available()

t = torch.arange(4.0, device="npu")
dist.all_reduce(t)
assert t.device.type == "npu" and t.cpu().tolist() == [0, 1, 2, 3]
dist.all_reduce(t, op=dist.ReduceOp.MAX)
dist.broadcast(t, src=0)
gathered = [torch.zeros(4, device="npu")]
dist.all_gather(gathered, t)
assert gathered[0].cpu().tolist() == [0, 1, 2, 3]
into = torch.zeros(4, device="npu")
dist.all_gather_into_tensor(into, t)
assert into.cpu().tolist() == [0, 1, 2, 3]
scattered = torch.zeros(4, device="npu")
dist.reduce_scatter_tensor(scattered, t)
assert scattered.cpu().tolist() == [0, 1, 2, 3]
work = dist.all_reduce(t, async_op=True)
work.wait()
dist.barrier()
print("ok collectives")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2)).npu()
reference = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
reference.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
ddp = DDP(model, device_ids=[0])
x = torch.randn(10, 6)
ddp(x.npu()).pow(2).mean().backward()
reference(x).pow(2).mean().backward()
for mine, expected in zip(model.parameters(), reference.parameters()):
    assert mine.grad.device.type == "npu"
    torch.testing.assert_close(mine.grad.cpu(), expected.grad)
print("ok ddp")

mesh = init_device_mesh("npu", (1,))
full = torch.arange(12.0).view(3, 4)
sharded = distribute_tensor(full.npu(), mesh, [Shard(1)])
assert sharded.to_local().device.type == "npu" and torch.equal(sharded.to_local().cpu(), full)
assert torch.equal((sharded @ sharded.T).redistribute(mesh, [Replicate()]).to_local().cpu(), full @ full.T)
print("ok dtensor")


def fsdp2_training(shard):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    if shard:
        fully_shard(model[0], mesh=mesh)
        fully_shard(model, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(5)
    x, y = torch.randn(8, 6, generator=g), torch.randn(8, 2, generator=g)
    losses = []
    for _ in range(3):
        loss = nn.functional.mse_loss(model(x.npu() if shard else x), y.npu() if shard else y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    parameters = [p.full_tensor().cpu() if shard else p.detach() for p in model.parameters()]
    return losses, parameters


sharded_losses, sharded_parameters = fsdp2_training(shard=True)
cpu_losses, cpu_parameters = fsdp2_training(shard=False)
assert sharded_losses[-1] < sharded_losses[0]
torch.testing.assert_close(sharded_losses, cpu_losses)
torch.testing.assert_close(sharded_parameters, cpu_parameters)
print("ok fsdp2")
world = dist.group.WORLD
dist.destroy_process_group()
# destroy_process_group shut the gloo group inside hccl down, as torch does its own backends
assert world._gloo is None
