"""Which device a model or tensor lives on (cpu, cuda, npu) and the versions of the framework stack.

Importable without torch_npu (and without torch until a function is called)."""
import importlib
import sys


def torch_npu_module():
    """The torch_npu module when it is installed (importing it registers the npu device), else None."""
    if "torch_npu" in sys.modules:
        return sys.modules["torch_npu"]
    try:
        return importlib.import_module("torch_npu")
    except ImportError:
        return None


def device_type(obj):
    """'cpu', 'cuda', 'npu', ... for a tensor, a module (its first parameter or buffer) or a device."""
    import torch

    if isinstance(obj, torch.device):
        return obj.type
    if isinstance(obj, torch.Tensor):
        return obj.device.type
    if isinstance(obj, torch.nn.Module):
        for t in list(obj.parameters()) + list(obj.buffers()):
            return t.device.type
    return "cpu"


def device_of(module):
    """The torch.device of a module's first parameter or buffer (cpu for a module without any)."""
    import torch

    for t in list(module.parameters()) + list(module.buffers()):
        return t.device
    return torch.device("cpu")


def versions():
    """{'torch': ..., 'torch_npu': ... or None, 'cuda': ... or None}."""
    import torch

    npu = torch_npu_module()
    return {
        "torch": torch.__version__,
        "torch_npu": getattr(npu, "__version__", None) if npu is not None else None,
        "cuda": torch.version.cuda,
    }


def synchronize(device):
    """Waits for queued work on a cuda or npu device; a no-op on cpu."""
    import torch

    kind = device.type if hasattr(device, "type") else str(device)
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "npu" and hasattr(torch, "npu"):
        torch.npu.synchronize(device)
