"""The npu device and torch.npu / torch_npu APIs a migrated program uses; prints "ok NAME" per check."""
import gc
import io
import os
import warnings

import torch
import torch.nn as nn
import torch_npu
from torch.npu.amp import GradScaler, autocast  # noqa: F401 - the import form migrate emits
from torch_npu.contrib import transfer_to_npu  # noqa: F401

assert torch.device("npu").type == "npu" and torch.device("npu:0").index == 0
cpu = torch.arange(6.0).view(2, 3)
made = [cpu.npu(), cpu.to("npu"), cpu.to("npu:0"), cpu.to(torch.device("npu", 0)), cpu.npu(0),
        torch.tensor([[0.0, 1, 2], [3, 4, 5]], device="npu"), torch.arange(6.0, device="npu").view(2, 3)]
for t in made:
    assert t.device == torch.device("npu", 0) and t.device.type == "npu" and t.is_npu, t.device
    assert t.cpu().tolist() == [[0, 1, 2], [3, 4, 5]] and t.cpu().device.type == "cpu"
assert not cpu.is_npu
assert torch.zeros(2, 3, device="npu").sum().item() == 0.0
assert torch.full((2,), 3, device="npu").tolist() == [3, 3]
assert torch.ones(1, device="npu").item() == 1.0
assert "device='npu:0'" in repr(made[0]) and "device='npu:0'" in str(made[0])
print("ok tensors")

model = nn.Linear(3, 2)
weight = model.weight.detach().clone()
for moved in (model.to("npu"), nn.Linear(3, 2).npu(), nn.Linear(3, 2).to(torch.device("npu:0"))):
    assert all(p.device.type == "npu" for p in moved.parameters())
assert torch.equal(model.weight.cpu(), weight)
model.to(torch.bfloat16)
assert model.weight.dtype == torch.bfloat16 and torch.equal(model.weight.float().cpu(), weight.bfloat16().float())
print("ok modules")

assert torch.npu.is_available() and torch.npu.device_count() == 1 and torch.npu.current_device() == 0
torch.npu.set_device(0)
torch.npu.set_device("npu:0")
torch.npu.synchronize()
torch.npu.empty_cache()
assert isinstance(torch.npu.get_device_name(0), str)
assert torch_npu.npu is torch.npu and torch.get_device_module("npu") is torch.npu
assert torch.accelerator.current_accelerator() == torch.device("npu")
assert torch.accelerator.device_count() == 1
try:
    torch.npu.set_device(1)
    raise SystemExit("set_device(1) was accepted on a one-device simulator")
except RuntimeError:
    pass
print("ok device module")

# What torch_npu answers (Ascend/pytorch torch_npu/npu/__init__.py, torch_npu/csrc/npu/Module.cpp).
os.environ.pop("TORCH_NPU_DEVICE_CAPABILITY", None)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert torch.npu.get_device_capability() is None
    os.environ["TORCH_NPU_DEVICE_CAPABILITY"] = "9.0"
    assert torch.npu.get_device_capability(0) == (9, 0)
    os.environ["TORCH_NPU_DEVICE_CAPABILITY"] = "9"
    assert torch.npu.get_device_capability() is None
assert [str(w.message).split(" ")[:3] for w in caught] == [
    ["You", "can", "set"], ["The", "return", "value"], ["torch.npu.get_device_capability", "can't", "parse"]]
del os.environ["TORCH_NPU_DEVICE_CAPABILITY"]
properties = torch.npu.get_device_properties(0)
assert type(properties).__name__ == "_NPUDeviceProperties" and properties.name == torch.npu.get_device_name()
assert properties.total_memory == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
assert properties.cube_core_num == properties.vector_core_num == os.cpu_count()
assert properties.L2_cache_size >= 0
for unset in ("major", "minor", "is_multi_gpu_board", "is_integrated", "multi_processor_count",
              "max_threads_per_multi_processor", "warp_size", "regs_per_multiprocessor", "gcnArchName"):
    assert getattr(properties, unset) is None, unset
assert str(properties.uuid) == "00000000-0000-0000-0000-000000000000" and properties.uuid.bytes == [0] * 16
assert repr(properties).startswith(f"_NPUDeviceProperties(name='{properties.name}', total_memory=")
for failing, error in ((lambda: properties.major >= 8, TypeError), (lambda: properties.sm_count, AttributeError),
                       (lambda: setattr(properties, "name", "x"), AttributeError),
                       (lambda: torch.npu.get_device_properties(1), AssertionError)):
    try:
        failing()
        raise SystemExit(f"no {error.__name__}")
    except error:
        pass
print("ok properties")

gc.collect()
base = torch.npu.memory_allocated()
torch.npu.reset_peak_memory_stats()
block = torch.empty(1000, 250, device="npu")  # 1,000,000 bytes of float32
assert torch.npu.memory_allocated() - base == 1_000_000
assert torch.npu.max_memory_allocated() - base == 1_000_000
assert torch.npu.memory_reserved() >= torch.npu.memory_allocated()
del block
gc.collect()
assert torch.npu.memory_allocated() == base and torch.npu.max_memory_allocated() - base == 1_000_000
torch.npu.reset_peak_memory_stats()
assert torch.npu.max_memory_allocated() == base
print("ok memory")

# torch.accelerator as a device-agnostic program uses it; the expected values are formulas.
torch.accelerator.synchronize()
torch.accelerator.synchronize("npu:0")
gc.collect()
base = torch.accelerator.memory_allocated()
torch.accelerator.reset_peak_memory_stats()
block = torch.empty(500, 100, device="npu", dtype=torch.float64)
size = 500 * 100 * 8
assert torch.accelerator.memory_allocated() - base == size == torch.npu.memory_allocated() - base
assert torch.accelerator.memory.memory_allocated(0) - base == size
assert torch.accelerator.max_memory_allocated() - base == size
assert torch.accelerator.memory_reserved() == torch.npu.memory_reserved()
assert torch.accelerator.max_memory_reserved() == torch.npu.max_memory_reserved()
assert torch.accelerator.memory_stats()["allocated_bytes.all.current"] == base + size
assert torch.accelerator.memory_stats() == torch.npu.memory_stats()
del block
gc.collect()
assert torch.accelerator.memory_allocated() == base and torch.accelerator.max_memory_allocated() == base + size
torch.accelerator.reset_peak_memory_stats()
torch.accelerator.reset_accumulated_memory_stats()
assert torch.accelerator.max_memory_allocated() == base
free, total = torch.accelerator.get_memory_info()
assert total == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") and 0 < free <= total
torch.accelerator.empty_cache()
torch.accelerator.memory.empty_cache()
assert torch.accelerator.current_stream() == torch.npu.current_stream()
assert torch.accelerator.current_device_index() == torch.npu.current_device() == 0
print("ok accelerator")

stream = torch.npu.Stream()
start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
with torch.npu.stream(stream):
    start.record()
    y = made[0] * 2
    end.record()
end.synchronize()
stream.synchronize()
assert start.elapsed_time(end) >= 0 and end.query() and torch.npu.current_stream().query()
torch.npu.current_stream().wait_stream(stream)
assert y.cpu().tolist() == [[0, 2, 4], [6, 8, 10]]
print("ok streams")

torch.npu.manual_seed(11)
first = torch.rand(3, device="npu").cpu()
torch.npu.manual_seed_all(11)
assert torch.equal(torch.rand(3, device="npu").cpu(), first)
state = torch.npu.get_rng_state()
again = torch.rand(3, device="npu").cpu()
torch.npu.set_rng_state(state)
assert torch.equal(torch.rand(3, device="npu").cpu(), again)
print("ok random")

buffer = io.BytesIO()
original = {"w": made[0], "view": made[0][1], "step": 3}
torch.save(original, buffer)
for location in (None, "npu:0", torch.device("npu:0"), "npu", "cpu"):
    buffer.seek(0)
    loaded = torch.load(buffer, map_location=location)
    expected_device = "cpu" if location == "cpu" else "npu"
    assert loaded["w"].device.type == expected_device and loaded["step"] == 3
    assert torch.equal(loaded["w"].cpu(), cpu) and torch.equal(loaded["view"].cpu(), cpu[1])
    loaded["view"].fill_(9)  # the view still shares memory with the loaded tensor
    assert loaded["w"][1].cpu().tolist() == [9, 9, 9]
buffer = io.BytesIO()
torch.save(nn.Linear(2, 2).state_dict(), buffer)
buffer.seek(0)
assert all(t.device.type == "npu" for t in torch.load(buffer, map_location="npu:0").values())
print("ok save load")

host = torch.arange(4.0)
pinned = host.pin_memory()
assert pinned.is_pinned() and not host.is_pinned() and torch.equal(pinned, host)
on_npu = pinned.to("npu", non_blocking=True)
back = on_npu.to("cpu", non_blocking=True)
torch.npu.synchronize()
assert back.device.type == "cpu" and torch.equal(back, host)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(8.0)), batch_size=4,
                                     pin_memory=True)
batches = [batch.npu(non_blocking=True) for (batch,) in loader if batch.is_pinned()]
assert len(batches) == 2 and torch.equal(torch.cat(batches).cpu(), torch.arange(8.0))
print("ok pinned memory")

a, b = torch.randn(4, 4).npu(), torch.randn(4, 4).npu()
for context, low in ((torch.autocast("npu", dtype=torch.bfloat16), torch.bfloat16),
                     (torch.amp.autocast("npu", dtype=torch.float16), torch.float16),
                     (torch.npu.amp.autocast(), torch.float16), (autocast(dtype=torch.bfloat16), torch.bfloat16)):
    with context:
        product, soft = a @ b, torch.softmax(a, -1)
    assert product.dtype == low and soft.dtype == torch.float32, (product.dtype, soft.dtype)
    assert torch.equal(product.cpu(), (a.cpu().to(low) @ b.cpu().to(low)))
assert (a @ b).dtype == torch.float32
try:
    with torch.autocast("npu"):
        nn.functional.binary_cross_entropy(torch.rand(3, device="npu"), torch.rand(3, device="npu"))
    raise SystemExit("binary_cross_entropy ran under autocast")
except RuntimeError as error:
    assert "unsafe to autocast" in str(error)
scaler = GradScaler(init_scale=4.0)
weight = torch.ones(2, device="npu", requires_grad=True)
optimizer = torch.optim.SGD([weight], lr=1.0)
scaler.scale((weight * torch.tensor([1.0, float("inf")], device="npu")).sum()).backward()
scaler.step(optimizer)  # an inf gradient: the step is skipped and the scale halves
scaler.update()
assert scaler.get_scale() == 2.0 and weight.cpu().tolist() == [1.0, 1.0]
optimizer.zero_grad()
scaler.scale((weight * 3).sum()).backward()
scaler.step(optimizer)
scaler.update()
assert weight.cpu().tolist() == [-2.0, -2.0], weight
print("ok autocast")
