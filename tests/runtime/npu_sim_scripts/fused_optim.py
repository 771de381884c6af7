"""torch_npu.optim's fused optimizers on npu: Adam, AdamW and SGD against torch.optim on the CPU,
LAMB against its update written here (torch_npu's npu_fused_lamb.py: the LAMB paper's trust ratio
with ||p|| clipped to 10 and no bias correction), and what torch_npu's combining of parameters
implies. Prints "ok NAME" per check, exits 1 on the first miss.
"""
import math

import torch
import torch_npu
from torch.testing import assert_close
from torch_npu.optim import NpuFusedAdam, NpuFusedAdamW, NpuFusedLamb, NpuFusedSGD

from banjia.npu_sim import stats

NPU = torch.device("npu")
generator = torch.Generator().manual_seed(0)
SHAPES = [(4, 3), (3,), (2, 2, 2)]
STEPS = 6
# The first parameter's norm is above 10, where LAMB clips the weight norm.
START = [torch.randn(*shape, generator=generator) * (5 if i == 0 else 1) for i, shape in enumerate(SHAPES)]
GRADIENTS = [[torch.randn(*shape, generator=generator) for shape in SHAPES] for _ in range(STEPS)]


def train(make, device, dtype=torch.float32, gradients=GRADIENTS):
    """Steps of make(params) with the given gradients; the gradient tensors stay the same objects
    after the first step, as code written for torch_npu's combined gradients keeps them."""
    params = [torch.nn.Parameter(t.to(dtype).to(device)) for t in START]
    optimizer = make(params)
    for grads in gradients:
        for p, g in zip(params, grads):
            if p.grad is None:
                p.grad = g.to(dtype).to(device)
            else:
                p.grad.copy_(g)
        before = stats.COUNTS.npu_ops
        optimizer.step()
        assert device == "cpu" or stats.COUNTS.npu_ops > before
    return [p.detach().cpu() for p in params]


def groups(params, **second):
    return [{"params": params[:2]}, {"params": params[2:], **second}]


def check(name, fused, reference, dtype=torch.float32):
    tolerance = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 2e-3, "atol": 2e-3}
    for got, want in zip(train(fused, NPU, dtype), train(reference, "cpu", dtype)):
        assert got.dtype == dtype
        assert_close(got, want, **tolerance)
    print("ok", name)


check("NpuFusedAdam defaults", NpuFusedAdam, torch.optim.Adam)
check("NpuFusedAdam weight_decay amsgrad groups",
      lambda p: NpuFusedAdam(groups(p, lr=0.05), lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True),
      lambda p: torch.optim.Adam(groups(p, lr=0.05), lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1,
                                 amsgrad=True))
check("NpuFusedAdamW defaults", NpuFusedAdamW, torch.optim.AdamW)
check("NpuFusedAdamW weight_decay amsgrad", lambda p: NpuFusedAdamW(p, lr=0.02, weight_decay=0.3, amsgrad=True),
      lambda p: torch.optim.AdamW(p, lr=0.02, weight_decay=0.3, amsgrad=True))
check("NpuFusedSGD momentum dampening weight_decay",
      lambda p: NpuFusedSGD(p, lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01),
      lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01))
check("NpuFusedSGD nesterov groups",
      lambda p: NpuFusedSGD(groups(p, momentum=0.5), lr=0.05, momentum=0.9, nesterov=True),
      lambda p: torch.optim.SGD(groups(p, momentum=0.5), lr=0.05, momentum=0.9, nesterov=True))
check("NpuFusedSGD plain", lambda p: NpuFusedSGD(p, lr=0.1), lambda p: torch.optim.SGD(p, lr=0.1))
check("NpuFusedSGD float16", lambda p: NpuFusedSGD(p, lr=0.1, momentum=0.9),
      lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), dtype=torch.float16)


def lamb_reference(gradients, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, adam=False,
                   use_global_grad_norm=False):
    """LAMB, element by element in float64:
        G = sqrt(sum of every g^2) when use_global_grad_norm; g /= G when G > 1
        m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
        r = m / (sqrt(v) + eps) + weight_decay * p
        ratio = min(||p||, 10) / ||r|| (1 if either norm is 0, or with adam=True)
        p = p - lr * ratio * r"""
    beta1, beta2 = betas
    params = [t.double().flatten().tolist() for t in START]
    first = [[0.0] * len(p) for p in params]
    second = [[0.0] * len(p) for p in params]
    for grads in gradients:
        grads = [g.double().flatten().tolist() for g in grads]
        if use_global_grad_norm:
            total = math.sqrt(sum(x * x for g in grads for x in g))
            if total > 1:
                grads = [[x / total for x in g] for g in grads]
        for p, g, m, v in zip(params, grads, first, second):
            update = []
            for e in range(len(p)):
                m[e] = beta1 * m[e] + (1 - beta1) * g[e]
                v[e] = beta2 * v[e] + (1 - beta2) * g[e] * g[e]
                update.append(m[e] / (math.sqrt(v[e]) + eps) + weight_decay * p[e])
            weight_norm = min(math.sqrt(sum(x * x for x in p)), 10.0)
            update_norm = math.sqrt(sum(x * x for x in update))
            ratio = 1.0 if adam or weight_norm == 0 or update_norm == 0 else weight_norm / update_norm
            for e in range(len(p)):
                p[e] -= lr * ratio * update[e]
    return [torch.tensor(p, dtype=torch.float64).reshape(shape) for p, shape in zip(params, SHAPES)]


def check_lamb(name, gradients=GRADIENTS, **kwargs):
    got = train(lambda p: NpuFusedLamb(p, **kwargs), NPU, gradients=gradients)
    for value, want in zip(got, lamb_reference(gradients, **kwargs)):
        assert_close(value.double(), want, rtol=1e-5, atol=1e-5)
    print("ok", name)


check_lamb("NpuFusedLamb defaults")
check_lamb("NpuFusedLamb weight_decay", lr=0.05, betas=(0.8, 0.9), eps=1e-4, weight_decay=0.1)
check_lamb("NpuFusedLamb global grad norm", gradients=[[g * 5 for g in grads] for grads in GRADIENTS], lr=0.05,
           use_global_grad_norm=True)
check_lamb("NpuFusedLamb adam", lr=0.05, weight_decay=0.01, adam=True)

# What combining the parameters at the first step implies on torch_npu.
params = [torch.nn.Parameter(torch.ones(3, device=NPU)), torch.nn.Parameter(torch.ones(2, device=NPU))]
optimizer = NpuFusedSGD(params, lr=0.5)
params[0].grad = torch.ones(3, device=NPU)
optimizer.step()
params[1].grad = torch.ones(2, device=NPU)
optimizer.step()
assert params[0].detach().cpu().tolist() == [0.0, 0.0, 0.0] and params[1].detach().cpu().tolist() == [1.0, 1.0]
optimizer.zero_grad()
assert params[0].grad is not None and params[0].grad.abs().sum().item() == 0
try:
    optimizer.zero_grad(set_to_none=True)
    raise AssertionError("set_to_none=True accepted")
except ValueError as error:
    assert "set_to_none is not supported" in str(error)
bfloat16 = torch.nn.Parameter(torch.ones(2, dtype=torch.bfloat16, device=NPU))
bfloat16.grad = torch.ones_like(bfloat16)
try:
    NpuFusedAdam([bfloat16]).step()
    raise AssertionError("bfloat16 parameter accepted")
except TypeError as error:
    assert "float32 or float16" in str(error)
try:
    NpuFusedSGD(params)
    raise AssertionError("NpuFusedSGD without lr accepted")
except ValueError as error:
    assert "lr" in str(error)
print("ok combined parameters")

# Closures: the base class's step runs them under no_grad, NpuFusedLamb's under enable_grad.
seen = []
closure = lambda: seen.append(torch.is_grad_enabled())
NpuFusedAdam(params).step(closure)
NpuFusedLamb(params).step(closure)
assert seen == [False, True]
print("ok closures")

# clip_grad_norm_fused_ clips the gradients by their total norm, as torch.nn.utils.clip_grad_norm_.
for norm_type in (2.0, math.inf):
    npu_params = [torch.nn.Parameter(t.to(NPU)) for t in START]
    cpu_params = [torch.nn.Parameter(t.clone()) for t in START]
    for p, q, g in zip(npu_params, cpu_params, GRADIENTS[0]):
        p.grad, q.grad = g.to(NPU), g.clone()
    total = NpuFusedAdamW(npu_params).clip_grad_norm_fused_(1.5, norm_type=norm_type)
    want = torch.nn.utils.clip_grad_norm_(cpu_params, 1.5, norm_type=norm_type)
    assert_close(total.cpu(), want)
    for p, q in zip(npu_params, cpu_params):
        assert_close(p.grad.cpu(), q.grad)
print("ok clip_grad_norm_fused_")

try:
    torch_npu.optim.NpuFusedRMSprop
    raise AssertionError("NpuFusedRMSprop provided")
except AttributeError as error:
    assert "not provided by the simulator" in str(error)
print("ok unprovided optimizer")
