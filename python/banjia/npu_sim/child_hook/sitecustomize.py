"""Sets `python -m banjia.npu_sim` up in a child process of a simulated run (banjia.npu_sim.children).

The runner puts this directory first on the PYTHONPATH that child processes inherit, so this module
shadows any other `sitecustomize`; that one is run afterwards, as Python would have run it.
"""
import importlib.machinery
import importlib.util
import os
import sys


def _activate() -> None:
    try:
        from banjia.npu_sim import children
    except ImportError as error:  # the banjia package moved away while the run went on
        print(f"banjia npu_sim: child process not simulated: {error}", file=sys.stderr)
        return
    children.activate()


def _run_shadowed_sitecustomize() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


_activate()
_run_shadowed_sitecustomize()
