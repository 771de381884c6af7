"""The runtime package imports without torch_npu present."""
import importlib


def test_import_banjia():
    mod = importlib.import_module("banjia")
    assert hasattr(mod, "__version__")


def test_lazy_functions_stay_functions_after_first_use():
    import banjia
    first = banjia.capture
    second = banjia.capture
    assert callable(first) and first is second
    assert not isinstance(second, type(banjia))
