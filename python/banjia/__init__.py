"""banjia runtime: capture per-layer tensors, record benchmarks and profiles on cpu, cuda or npu.

Importable without torch (and without torch_npu); each feature imports torch when it is used.

    with banjia.capture(model, "dumps/gpu"):      # banjia/_capture.py
        loss = model(x).sum(); loss.backward()
    banjia.bench.record(step, batch_size=64)      # banjia/bench.py
    banjia.profile(step, steps=5, out="prof")     # banjia/_profile.py
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

# Lazily resolved attributes: name -> (module, attribute or None for the module itself). Functions
# live in private modules (`_capture`) so that importing the module never rebinds the package
# attribute of the same name to the module.
_LAZY = {
    "capture": ("banjia._capture", "capture"),
    "bench": ("banjia.bench", None),
    "profile": ("banjia._profile", "profile"),
    "device": ("banjia.device", None),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        module = importlib.import_module(module_name)
        return module if attr is None else getattr(module, attr)
    raise AttributeError(f"module 'banjia' has no attribute {name!r}")
