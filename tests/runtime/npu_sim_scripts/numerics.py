"""Ops on npu against the same ops on the CPU; prints "ok NAME" per check, exits 1 on the first miss."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu  # noqa: F401
from torch.testing import assert_close

NPU = torch.device("npu")


def on(device, value):
    if isinstance(value, torch.Tensor):
        return value.detach().to(device)
    return value


def check(name, expected, actual):
    actual = [a.detach().cpu() if isinstance(a, torch.Tensor) else a for a in actual]
    for e, a in zip(expected, actual):
        if isinstance(e, torch.Tensor):
            assert_close(a, e.detach(), rtol=1e-5, atol=1e-6)
            assert a.dtype == e.dtype, (name, a.dtype, e.dtype)
        else:
            assert a == e, (name, a, e)
    print("ok", name)


g = torch.Generator().manual_seed(0)
a, b = torch.randn(5, 7, generator=g), torch.randn(7, 3, generator=g)

# Literal expectations: the layout machinery (views, strides, contiguous) gives known values.
t = torch.arange(6.0).to(NPU).view(2, 3).t()
assert not t.is_contiguous() and t.stride() == (1, 3)
assert t.contiguous().view(-1).cpu().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
x = torch.zeros(3, 4, device=NPU)
x[1].add_(2)
x[:, 3] = 7
assert x.cpu().tolist() == [[0, 0, 0, 7], [2, 2, 2, 7], [0, 0, 0, 7]]
x.t()[0].fill_(-1)  # in place through a transposed view reaches the base
assert x[:, 0].cpu().tolist() == [-1, -1, -1]
print("ok views")

check("matmul", [a @ b], [on(NPU, a) @ on(NPU, b)])
check("elementwise", [torch.tanh(a) * 2 + a.exp().clamp(max=3)],
      [torch.tanh(on(NPU, a)) * 2 + on(NPU, a).exp().clamp(max=3)])
ints = torch.arange(10)
check("wrapped numbers", [ints % 7, ints * 1.5, a * 0.1, a.double() + 0.1],
      [on(NPU, ints) % 7, on(NPU, ints) * 1.5, on(NPU, a) * 0.1, on(NPU, a).double() + 0.1])
check("reductions", [a.sum(0), a.mean(), a.max(1).values, a.argmax(1), a.norm()],
      [on(NPU, a).sum(0), on(NPU, a).mean(), on(NPU, a).max(1).values, on(NPU, a).argmax(1), on(NPU, a).norm()])
idx, mask = torch.tensor([4, 0, 2]), a > 0
check("indexing", [a[idx], a[idx], a[mask], a[:, 1:5:2], torch.where(mask, a, 0.0)],
      [on(NPU, a)[idx], on(NPU, a)[on(NPU, idx)], on(NPU, a)[on(NPU, mask)], on(NPU, a)[:, 1:5:2],
       torch.where(on(NPU, mask), on(NPU, a), 0.0)])
out_cpu, out_npu = torch.empty(0), torch.empty(0, device=NPU)
torch.mul(a, 3, out=out_cpu)
torch.mul(on(NPU, a), 3, out=out_npu)
strided_cpu, strided_npu = torch.zeros(7, 5), torch.zeros(7, 5, device=NPU)
torch.add(a, 1, out=strided_cpu.t())
torch.add(on(NPU, a), 1, out=strided_npu.t())
check("out=", [out_cpu, strided_cpu], [out_npu, strided_npu])
check("cat stack", [torch.cat([a, a]), torch.stack([a, a], 2)],
      [torch.cat([on(NPU, a)] * 2), torch.stack([on(NPU, a)] * 2, 2)])


def grads(device, build, *inputs):
    torch.manual_seed(0)
    module = build().to(device)
    loss = module(*[on(device, i) for i in inputs]).float().pow(2).mean()
    loss.backward()
    return [loss] + [p.grad for p in module.parameters()]


images = torch.randn(2, 3, 8, 8, generator=g)
tokens = torch.randint(0, 11, (2, 6), generator=g)
sequence = torch.randn(2, 5, 4, generator=g)
for name, build, inputs in [
    ("linear", lambda: nn.Sequential(nn.Linear(7, 4), nn.GELU(), nn.LayerNorm(4)), (a,)),
    ("conv", lambda: nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                   nn.ConvTranspose2d(4, 2, 2, stride=2), nn.MaxPool2d(2)), (images,)),
    ("embedding", lambda: nn.Sequential(nn.Embedding(11, 5), nn.Flatten(), nn.Linear(30, 2)), (tokens,)),
    ("lstm", lambda: nn.LSTM(4, 6, num_layers=2, batch_first=True), (sequence,)),
    ("gru", lambda: nn.GRU(4, 6, batch_first=True, bidirectional=True), (sequence,)),
    ("attention", lambda: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True), (sequence,)),
]:
    if name in ("lstm", "gru"):
        def build(make=build):
            rnn = make()
            return nn.Sequential(rnn, type("First", (nn.Module,), {"forward": lambda self, o: o[0]})())
    check(f"autograd {name}", grads("cpu", build, *inputs), grads(NPU, build, *inputs))

logits, labels = torch.randn(6, 4, generator=g), torch.randint(0, 4, (6,), generator=g)
leaf_cpu = logits.clone().requires_grad_()
leaf_npu = on(NPU, logits).requires_grad_()
F.cross_entropy(leaf_cpu, labels).backward()
F.cross_entropy(leaf_npu, on(NPU, labels)).backward()
check("cross_entropy grad", [leaf_cpu.grad], [leaf_npu.grad])


def train(device, optimizer_args):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(7, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, **optimizer_args)
    for _ in range(3):
        optimizer.zero_grad()
        model(on(device, a)).pow(2).mean().backward()
        optimizer.step()
    return list(model.parameters())


reference = train("cpu", {})
for variant in ({}, {"foreach": True}, {"fused": True}):
    check(f"AdamW {variant or 'for-loop'}", reference, train(NPU, variant))

torch.manual_seed(7)
dropped_npu = F.dropout(torch.ones(1000, device=NPU), 0.5)
torch.manual_seed(7)
dropped_cpu = F.dropout(torch.ones(1000), 0.5)
torch.npu.manual_seed(3)
random_npu = torch.randn(4, device=NPU)
torch.manual_seed(3)
random_cpu = torch.randn(4)
check("random streams", [dropped_cpu, random_cpu], [dropped_npu, random_npu])


def inference(device):
    """A greedy decoding loop the way HF generate runs it: views of normal tensors made outside
    inference_mode (weights, the prompt), new tensors and views of them inside."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(11, 8), nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                          nn.Linear(8, 11)).to(device).eval()
    prompt = on(device, tokens)
    with torch.inference_mode():
        ids = prompt
        for _ in range(3):
            next_id = model(ids)[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, next_id], 1)
        row, weight_t, columns = prompt[0], model[2].weight.t(), ids.unbind(1)
        flags = [row.is_inference(), weight_t.is_inference(), ids.is_inference(), columns[0].is_inference(),
                 ids[:, 1:].is_inference()]
        row.add_(0)  # an in-place op on a view of a normal tensor bumps the base's version
    ids_view = ids[0]  # a view of an inference tensor outside inference_mode is an inference tensor
    return [ids, *columns, *flags, prompt._version, ids_view.is_inference(), (ids_view + 1).is_inference()]


check("inference_mode", inference("cpu"), inference(NPU))
