"""The hccl process group of the simulator: collectives and DDP in one process (world size 1)."""
import os
import socket

import torch
import torch.distributed as dist
import torch.nn as nn
import torch_npu  # noqa: F401
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
dist.destroy_process_group()
