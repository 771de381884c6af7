"""banjia.device: device selection through torch.accelerator (torch >= 2.6) and by probing on older
torch, the device of tensors and modules, synchronisation and peak memory (CPU build of torch)."""
import os
import pathlib
import subprocess
import sys
import types

import pytest

torch = pytest.importorskip("torch")
from banjia import device as dev  # noqa: E402


def test_selection_on_this_torch_agrees_with_torch_accelerator():
    expect = "cpu"
    if hasattr(torch, "accelerator") and torch.accelerator.is_available():
        expect = torch.accelerator.current_accelerator().type
    elif torch.cuda.is_available():
        expect = "cuda"
    assert dev.default_device_type() == expect
    assert dev.resolve(None).type == expect


def fake_accelerator(kind):
    return types.SimpleNamespace(is_available=lambda: kind is not None,
                                 current_accelerator=lambda: types.SimpleNamespace(type=kind))


@pytest.mark.parametrize("kind,expect", [("npu", "npu"), ("cuda", "cuda"), ("mps", "cpu"), (None, "cpu")])
def test_torch_accelerator_decides_where_it_exists(monkeypatch, kind, expect):
    monkeypatch.setattr(torch, "accelerator", fake_accelerator(kind), raising=False)
    # probing must not be consulted when torch.accelerator exists
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert dev.default_device_type() == expect


@pytest.mark.parametrize("cuda", [True, False])
def test_older_torch_is_probed_through_torch_cuda(monkeypatch, cuda):
    monkeypatch.delattr(torch, "accelerator", raising=False)  # torch < 2.6
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    if hasattr(torch, "npu"):
        monkeypatch.setattr(torch.npu, "is_available", lambda: False)
    assert dev.default_device_type() == ("cuda" if cuda else "cpu")


def test_older_torch_prefers_a_registered_npu(monkeypatch):
    monkeypatch.delattr(torch, "accelerator", raising=False)
    monkeypatch.setattr(torch, "npu", types.SimpleNamespace(is_available=lambda: True), raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert dev.default_device_type() == "npu"


def test_resolve_checks_type_and_availability():
    assert dev.resolve("cpu") == torch.device("cpu")
    assert dev.resolve(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(ValueError, match="unsupported device type 'meta'"):
        dev.resolve("meta")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"torch.cuda.is_available\(\) is False"):
            dev.resolve("cuda:0")


def test_device_type_and_device_of():
    t = torch.zeros(2)
    assert dev.device_type(t) == "cpu" and dev.device_type(t.to("meta")) == "meta"
    assert dev.device_type("cpu") == "cpu" and dev.device_type(torch.device("meta")) == "meta"
    assert dev.device_type(object()) == "cpu"
    lin = torch.nn.Linear(2, 2).to("meta")
    assert dev.device_type(lin) == "meta" and dev.device_of(lin) == torch.device("meta")
    bn_only = torch.nn.Module()
    bn_only.register_buffer("b", torch.zeros(1, device="meta"))
    assert dev.device_of(bn_only) == torch.device("meta")  # a buffer counts when there is no parameter
    assert dev.device_of(torch.nn.ReLU()) == torch.device("cpu")


def test_synchronize_goes_to_the_device_module(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: calls.append(d))
    dev.synchronize("cpu")
    dev.synchronize(torch.zeros(1))
    assert calls == []
    target = torch.device("cuda", 1)
    dev.synchronize(target)
    assert calls == [target]


def test_cpu_peak_memory_sees_an_allocation_and_resets():
    # In a fresh process: in this one, memory that other tests' leftovers free between the reset and the
    # allocation would lower the peak below what the allocation adds.
    code = """
import torch, banjia.device as dev
def vm_rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
cpu = torch.device("cpu")
n_bytes = 128 * 2**20
reset = dev.reset_peak_memory(cpu)
before = vm_rss()
x = torch.ones(n_bytes // 4)  # float32: every page written
del x
peak = dev.peak_memory(cpu, reset)
assert peak.allocated_bytes is None and peak.rss_bytes >= before + n_bytes * 0.9, (peak, before)
if peak.since_reset:  # Linux with /proc/self/clear_refs: a new peak starts from the current RSS
    again = dev.peak_memory(cpu, dev.reset_peak_memory(cpu))
    assert again.rss_bytes < peak.rss_bytes - n_bytes * 0.5, (again, peak)
"""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc/self/status")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(pathlib.Path(dev.__file__).parents[1])))
    assert r.returncode == 0, r.stderr


def test_versions_do_not_import_torch_npu():
    import sys

    imported_before = "torch_npu" in sys.modules
    v = dev.versions()
    assert ("torch_npu" in sys.modules) == imported_before
    assert v["torch"] == torch.__version__ and v["cuda"] == torch.version.cuda
    assert set(v) == {"torch", "torch_npu", "cuda", "cann"}


def test_unknown_devices_are_clear_errors():
    import importlib.util

    if importlib.util.find_spec("torch_npu") is None:
        with pytest.raises(ValueError, match="'npu:0' needs torch_npu"):
            dev.resolve("npu:0")
    with pytest.raises(ValueError, match="not a device: 'gpu'"):
        dev.resolve("gpu")
