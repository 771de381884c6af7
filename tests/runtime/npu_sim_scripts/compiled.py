"""torch.compile on npu against eager on the CPU; prints "ok NAME" per check, exits 1 on the first miss.

The graphs are tiny: every one Inductor compiles costs a C++ compile.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu  # noqa: F401
from torch.testing import assert_close

NPU = torch.device("npu")
g = torch.Generator().manual_seed(0)
a, b = torch.randn(4, 6, generator=g), torch.randn(6, 3, generator=g)


def attention_like(total, x, y):
    scores = F.gelu(x @ y).softmax(-1)
    total.add_(x)  # an input mutated in place: the write must reach the npu tensor
    return scores * x.sum() + torch.arange(3, device=x.device), total[1:]  # a view of an input


compiled = torch.compile(attention_like, fullgraph=True)
total, expected_total = torch.zeros(4, 6, device=NPU), torch.zeros(4, 6)
for _ in range(2):
    result, view = compiled(total, a.to(NPU), b.to(NPU))
    expected, expected_view = attention_like(expected_total, a, b)
    assert result.device == torch.device("npu", 0), result.device
    assert view.device.type == "npu" and view.data_ptr() == total[1:].data_ptr()
    assert_close(result.cpu(), expected)
    assert_close(total.cpu(), expected_total)
view.mul_(2)
expected_view.mul_(2)
assert_close(total.cpu(), expected_total)
print("ok fullgraph function")

@torch.compile(backend="aot_eager", fullgraph=True)
def device_aware(x):
    # What model code asks about the device inside a compiled graph.
    if torch.cuda.is_available() or not torch.npu.is_available():
        return x
    return (x.exp() * 2).sum(0) + torch.npu.current_device() + torch.npu.device_count()


assert_close(device_aware(a.to(NPU)).cpu(), (a.exp() * 2).sum(0) + 1)
print("ok aot_eager")


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Linear(8, 3))


def train(model, step, optimizer, device):
    losses = []
    for _ in range(2):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(a.to(device)), torch.tensor([0, 2, 1, 0], device=device))
        loss.backward()
        step()
        losses.append(loss)
    return losses


reference = make()
reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.5, momentum=0.9)
reference_losses = train(reference, reference_optimizer.step, reference_optimizer, "cpu")
model = make().to(NPU)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
losses = train(torch.compile(model, fullgraph=True), torch.compile(optimizer.step), optimizer, NPU)
assert all(p.device.type == "npu" and p.grad.device.type == "npu" for p in model.parameters())
assert_close([loss.cpu() for loss in losses], reference_losses)
assert_close([p.cpu() for p in model.parameters()], list(reference.parameters()))
assert_close([optimizer.state[p]["momentum_buffer"].cpu() for p in model.parameters()],
             [reference_optimizer.state[p]["momentum_buffer"] for p in reference.parameters()])
print("ok compiled module and optimizer step")
