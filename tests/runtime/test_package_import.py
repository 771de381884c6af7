"""The runtime package: imports without torch and torch_npu, typed, and written for Python 3.8+ (the
oldest Python torch 2.1 and torch_npu 2.1 support)."""
import ast
import importlib
import os
import pathlib
import re
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "banjia"


def runtime_modules():
    """The runtime's own modules (npu_sim is a separate tool with its own requirements)."""
    return sorted(p for p in PACKAGE.glob("*.py"))


def test_import_banjia():
    mod = importlib.import_module("banjia")
    assert hasattr(mod, "__version__")


def test_import_banjia_does_not_import_torch():
    code = ("import sys, banjia, banjia.bench, banjia.device\n"
            "import banjia._capture, banjia._profile\n"
            "heavy = sorted(m for m in ('torch', 'torch_npu', 'numpy') if m in sys.modules)\n"
            "print(','.join(heavy))")
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def test_version_is_one_plain_line():
    """Packaging reads __version__ with a regex: it must stay a literal on a line of its own."""
    text = (PACKAGE / "__init__.py").read_text()
    found = re.findall(r'^__version__ = "(\d+\.\d+\.\d+)"$', text, re.M)
    import banjia
    assert found == [banjia.__version__]


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()


def test_modules_parse_as_python_3_8_and_defer_annotations():
    for path in runtime_modules():
        tree = ast.parse(path.read_text(), filename=str(path), feature_version=(3, 8))
        futures = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
        # annotations such as `int | None` or `list[str]` are never evaluated on Python < 3.10
        assert any(a.name == "annotations" for n in futures for a in n.names), path.name


def test_lazy_functions_stay_functions_after_first_use():
    import banjia
    first = banjia.capture
    second = banjia.capture
    assert callable(first) and first is second
    assert not isinstance(second, type(banjia))
    assert banjia.device.default_device_type in vars(banjia.device).values()
