"""Two simulated devices in one process (BANJIA_NPU_SIM_DEVICES=2); prints "ok NAME" per check."""
import torch
import torch.nn as nn
import torch_npu  # noqa: F401
from torch.testing import assert_close

assert torch.npu.device_count() == 2 and torch.accelerator.device_count() == 2
assert torch.npu.current_device() == 0 and torch.accelerator.current_device_index() == 0
try:
    torch.npu.set_device(2)
    raise SystemExit("set_device(2) was accepted with two devices")
except RuntimeError as error:
    assert "BANJIA_NPU_SIM_DEVICES" in str(error), error
print("ok count")

torch.npu.set_device(1)
assert torch.npu.current_device() == 1 and torch.accelerator.current_device_index() == 1
cpu = torch.arange(6.0).view(2, 3)
made = [cpu.to("npu"), cpu.to(torch.device("npu")), cpu.npu(), cpu.to("npu:1"), cpu.npu(1),
        torch.tensor([[0.0, 1, 2], [3, 4, 5]], device="npu"), torch.as_tensor(cpu, device="npu"),
        torch.arange(6.0, device="npu").view(2, 3), torch.zeros(2, 3, device="npu").add_(cpu.npu())]
for t in made:
    assert t.device == torch.device("npu", 1), t.device
    assert t.cpu().tolist() == cpu.tolist()
assert str(torch.npu.current_stream().device) == "npu:1"
with torch.accelerator.device_index(0):
    assert torch.npu.current_device() == 0 and torch.ones(1, device="npu").device.index == 0
with torch.npu.device(0):
    assert torch.accelerator.current_device_index() == 0
assert torch.npu.current_device() == 1
print("ok current device")

zero, one = torch.ones(3, device="npu:0"), torch.full((3,), 2.0, device="npu:1")
try:
    zero + one
    raise SystemExit("an op mixed npu:0 and npu:1")
except RuntimeError as error:
    assert "Expected all tensors to be on the same device" in str(error) and "npu:0 and npu:1" in str(error)
zero.copy_(one)
assert zero.device.index == 0 and zero.cpu().tolist() == [2, 2, 2]
assert one.to("npu:0").device.index == 0 and (one.to("npu:0") + zero).cpu().tolist() == [4, 4, 4]
print("ok devices do not mix")

torch.manual_seed(0)
reference = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to("npu")
model.load_state_dict(reference.state_dict())
x = torch.randn(5, 3)
model(x.to("npu")).pow(2).mean().backward()
reference(x).pow(2).mean().backward()
for mine, expected in zip(model.parameters(), reference.parameters()):
    assert mine.device.index == 1 and mine.grad.device.index == 1
    assert_close(mine.grad.cpu(), expected.grad)
print("ok autograd on npu:1")

before = torch.npu.memory_allocated(1)
block = torch.empty(250, device="npu:1")
assert torch.npu.memory_allocated(1) - before == 1000 == torch.accelerator.memory_allocated(1) - before
assert torch.npu.memory_allocated(0) == torch.accelerator.memory_allocated(0)
print("ok memory per device")
