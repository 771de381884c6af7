"""The runtime package imports without torch_npu present."""
import importlib


def test_import_banjia():
    mod = importlib.import_module("banjia")
    assert hasattr(mod, "__version__")
