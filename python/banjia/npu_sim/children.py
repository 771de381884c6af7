"""Child processes under the simulator, and what each one reports to the run's verdict.

The runner sets, before the program starts, environment variables that every child process inherits:
RESULTS_ENV names a directory for one result file per child, and PYTHONPATH starts with
`child_hook/` (whose `sitecustomize` calls `activate` at interpreter start) and the directory that
holds the banjia package. In a child Python interpreter (`subprocess` running Python, torchrun and
its workers, `multiprocessing` with the spawn and forkserver start methods) the simulator then sets
itself up when the child imports torch: the CUDA guards, the torch_npu stand-in's finder, the
autoload of `--autoload`. Children forked by `multiprocessing` (DataLoader workers, the fork start
method) inherit that state; their `Process._bootstrap` is wrapped to report them.

Each child writes `<pid>.json` when it exits (atexit; at the end of `_bootstrap` for forked ones,
which leave through os._exit): its op counts, its CUDA uses, and its error when it ended with an
uncaught exception. The runner adds them to the summary and fails the run on a CUDA use or an error
in any child. torch's own helper processes (Inductor's compile workers) and multiprocessing's
resource tracker run no program code: they do not set the simulator up and report nothing.

This module is imported at interpreter start in every child: it must not import torch.
"""
from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import sys
import tempfile
import types
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from banjia.npu_sim import import_hooks, stats

RESULTS_ENV = "BANJIA_NPU_SIM_RESULTS"
AUTOLOAD_ENV = "BANJIA_NPU_SIM_AUTOLOAD"
SCRIPT_DIR_ENV = "BANJIA_NPU_SIM_SCRIPT_DIR"
HOOK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child_hook")
_BANJIA_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The -c program of multiprocessing's resource tracker, which runs no program code; the forkserver's
# server runs none either but forks the processes that do, so it sets the simulator up silently.
_RESOURCE_TRACKER = "from multiprocessing.resource_tracker"
_FORKSERVER = "from multiprocessing.forkserver"


@dataclass
class ChildResult:
    pid: int
    command: str
    npu_ops: int = 0
    npu_graphs: int = 0
    npu_tensors: int = 0
    peak_bytes: int = 0
    cuda_queries: int = 0
    cuda_uses: list[str] = field(default_factory=list)
    error: str | None = None  # "FILE:LINE: Type: message" of an uncaught exception


# What this process reports: set in a child once it is known to run program code.
_reporting: list[bool] = [False]
_error: list[str | None] = [None]
_command: list[str] = []


# The parent's side.

def prepare(script_dir: str, autoload: bool) -> str:
    """Sets the environment that children inherit; returns the directory of their result files."""
    results = tempfile.mkdtemp(prefix="banjia-npu-sim-")
    os.environ[RESULTS_ENV] = results
    os.environ[SCRIPT_DIR_ENV] = script_dir
    os.environ[AUTOLOAD_ENV] = "1" if autoload else ""
    entries = [HOOK_DIR, _BANJIA_ROOT, *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(e for e in entries if e))
    install_process_hooks()
    return results


def collect(results: str) -> list[ChildResult]:
    """The reports of the children that have exited, in the order they started; removes the directory."""
    found: list[ChildResult] = []
    for name in os.listdir(results):
        if name.endswith(".json"):
            with open(os.path.join(results, name), encoding="utf-8") as f:
                found.append(ChildResult(**json.load(f)))
    shutil.rmtree(results, ignore_errors=True)
    return sorted(found, key=lambda child: child.pid)


# Both sides: processes that multiprocessing and torch.multiprocessing start.

def install_process_hooks() -> None:
    import_hooks.after_import("multiprocessing.process", _wrap_bootstrap)
    import_hooks.after_import("torch.multiprocessing.spawn", _wrap_start_processes)


def _wrap_bootstrap(module: types.ModuleType) -> None:
    original = module.BaseProcess._bootstrap

    @functools.wraps(original)
    def bootstrap(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Runs in the new process: forked ones carry the parent's counts, spawned ones start empty.
        if not os.environ.get(RESULTS_ENV):
            return original(self, *args, **kwargs)
        stats.COUNTS.start_child()
        _reporting[0] = True
        _command[:] = [f"{type(self).__name__} {self.name}"]
        self.run = functools.partial(_recording_errors, self.run)
        try:
            return original(self, *args, **kwargs)
        finally:
            write_result()

    module.BaseProcess._bootstrap = bootstrap


def _recording_errors(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return function(*args, **kwargs)
    except Exception as error:
        record_error(error)
        raise
    except BaseException as error:
        if type(error).__name__ == "CudaUsed":
            # Recorded where it happened and printed by the run's verdict: the process just ends.
            raise SystemExit(1) from None
        raise


def _wrap_start_processes(module: types.ModuleType) -> None:
    """torch.multiprocessing.spawn(fn, nprocs=N) starts one process per device: its children see
    N devices (unless BANJIA_NPU_SIM_DEVICES says otherwise), and fn's exceptions are recorded
    before torch's wrapper turns them into exit status 1."""
    original = module.start_processes

    @functools.wraps(original)
    def start_processes(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1,
                        *rest: Any, **kwargs: Any) -> Any:
        from banjia.npu_sim import devices

        devices.count()  # this process's own count, before the children's is set
        chosen = os.environ.get(devices.DEVICES_ENV)
        os.environ[devices.DEVICES_ENV] = chosen or str(max(nprocs, devices.count_from_environment()))
        try:
            return original(functools.partial(_recording_errors, fn), args, nprocs, *rest, **kwargs)
        finally:
            if chosen is None:
                del os.environ[devices.DEVICES_ENV]

    setattr(module, "start_processes", start_processes)
    parent = sys.modules.get("torch.multiprocessing")
    if parent is not None and hasattr(parent, "start_processes"):
        setattr(parent, "start_processes", start_processes)


# The child's side.

def _c_program(argv: list[str]) -> str:
    return argv[argv.index("-c") + 1] if "-c" in argv[:-1] else ""


def _is_torch_helper(argv: list[str]) -> bool:
    from banjia.npu_sim import frames

    main = next((a for a in argv[1:] if not a.startswith("-")), "")
    return bool(main) and os.path.isfile(main) and frames.is_torch_helper(main)


def activate() -> None:
    """Called by child_hook/sitecustomize.py in every Python child of a simulated run."""
    if not os.environ.get(RESULTS_ENV):
        return
    argv = list(getattr(sys, "orig_argv", sys.argv))
    if _c_program(argv).startswith(_RESOURCE_TRACKER) or _is_torch_helper(argv):
        del os.environ[RESULTS_ENV]  # nor their children
        return
    _command[:] = [" ".join([os.path.basename(argv[0]), *argv[1:]])[:200]]
    install_process_hooks()
    import_hooks.after_import("torch", _set_up_with_torch)
    _reporting[0] = not _c_program(argv).startswith(_FORKSERVER)
    sys.excepthook = _excepthook(sys.excepthook)
    atexit.register(write_result)


def _set_up_with_torch(torch_module: types.ModuleType) -> None:
    import threading

    from banjia.npu_sim import cuda_guard, frames, standin

    frames.set_script_directory(os.environ.get(SCRIPT_DIR_ENV) or os.getcwd())
    cuda_guard.install()
    standin.install_finder()
    threading.excepthook = _thread_excepthook(threading.excepthook)
    if os.environ.get(AUTOLOAD_ENV) and os.getenv("TORCH_DEVICE_BACKEND_AUTOLOAD", "1") == "1":
        import importlib

        importlib.import_module("torch_npu")


def _excepthook(previous: Callable[..., Any]) -> Callable[..., Any]:
    def hook(kind: type[BaseException], error: BaseException, tb: types.TracebackType | None) -> None:
        if type(error).__name__ == "CudaUsed":
            return  # recorded where it happened; the run's verdict prints it
        record_error(error)
        previous(kind, error, tb)
    return hook


def _thread_excepthook(previous: Any) -> Any:
    def hook(args: Any) -> None:
        if args.exc_type is not None and args.exc_type.__name__ == "CudaUsed":
            return
        previous(args)
    return hook


def record_error(error: BaseException) -> None:
    from banjia.npu_sim import frames

    if _error[0] is None and type(error).__name__ not in ("CudaUsed", "CudaUsedInWorker"):
        where = frames.program_location(error.__traceback__)
        _error[0] = f"{where}: {type(error).__name__}: {error}"


def write_result() -> None:
    results = os.environ.get(RESULTS_ENV)
    if not results or not _reporting[0] or not os.path.isdir(results):
        return
    counts = stats.COUNTS
    result = ChildResult(os.getpid(), _command[0] if _command else "python", counts.npu_ops, counts.npu_graphs,
                         counts.npu_tensors, counts.run_peak_bytes, counts.cuda_queries, list(counts.cuda_uses),
                         _error[0])
    path = os.path.join(results, f"{os.getpid()}.json")
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump(asdict(result), f)
    os.replace(path + ".part", path)
