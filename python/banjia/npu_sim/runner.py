"""`python -m banjia.npu_sim [--autoload] SCRIPT|-m MODULE [ARGS...]`: run a program on the simulated
npu, with its child processes, and judge the run (banjia.npu_sim.verdict).

Exit status: 0 when the program exited 0, ran ops on npu (itself or in a child process) and no
process touched CUDA; 1 when one did, when a child process ended with an uncaught exception, or
when nothing ran on npu; 2 for a usage error; otherwise the program's own non-zero status (an
uncaught exception prints its traceback and gives 1, as `python SCRIPT` does).
"""
from __future__ import annotations

import builtins
import importlib.machinery
import os
import shutil
import sys
import threading
import traceback
import types
from types import TracebackType
from typing import Any

USAGE = ("usage: python -m banjia.npu_sim [--autoload] SCRIPT [ARGS...] | -m MODULE [ARGS...]"
         " | --each SCRIPT...")
AUTOLOAD = "--autoload"
EACH = "--each"
PREFIX = "banjia npu_sim"


def _usage_error(message: str) -> int:
    print(f"{PREFIX}: {message}", file=sys.stderr)
    return 2


def _exit_status(code: Any) -> int:
    """The process status `python SCRIPT` gives for SystemExit(code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _program_traceback(tb: TracebackType | None) -> TracebackType | None:
    """The traceback from the program's first frame on (without the simulator's frames)."""
    from banjia.npu_sim import frames

    while tb is not None and frames.kind(tb.tb_frame.f_code.co_filename) in (frames.SIMULATOR, frames.PYTHON):
        tb = tb.tb_next
    return tb


def _main_module(path: str) -> types.ModuleType:
    """A fresh `__main__` for the program, set up the way `python SCRIPT` sets it up."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    module.__spec__ = None
    setattr(module, "__builtins__", builtins)
    setattr(module, "__cached__", None)
    sys.modules["__main__"] = module
    return module


def _run_main(script: str | None, module: str | None) -> None:
    if module is not None:
        # What `python -m MODULE` runs: the module as the real __main__, with __spec__ set (so that
        # multiprocessing's spawned children can import it again by name).
        import runpy

        getattr(runpy, "_run_module_as_main")(module, True)
        return
    assert script is not None
    with open(script, "rb") as source:
        code = compile(source.read(), script, "exec", dont_inherit=True)
    exec(code, _main_module(script).__dict__)


def _run_program(script: str | None, module: str | None) -> int:
    from banjia.npu_sim import cuda_guard, stats

    try:
        _run_main(script, module)
    except (cuda_guard.CudaUsed, cuda_guard.CudaUsedInWorker) as used:
        # Recorded where it happened, unless that was another process (a DataLoader worker), whose
        # exception arrives here re-raised with the original message inside.
        if not stats.COUNTS.cuda_uses:
            marker = f"{cuda_guard.PREFIX}: "
            lines = [line[line.index(marker):] for line in str(used).splitlines() if marker in line]
            stats.COUNTS.cuda_uses.append(lines[-1] if lines else f"{marker}CUDA used: {used}")
        return 1
    except SystemExit as stop:
        return _exit_status(stop.code)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - an uncaught exception of the program
        traceback.print_exception(type(error), error, _program_traceback(error.__traceback__))
        return 1
    return 0


def _thread_excepthook(previous: Any) -> Any:
    def hook(args: threading.ExceptHookArgs) -> None:
        from banjia.npu_sim import cuda_guard

        if args.exc_type is not None and issubclass(args.exc_type, cuda_guard.CudaUsed):
            return  # recorded already; reported once at exit
        previous(args)
    return hook


def _autoload_torch_npu() -> None:
    """What `import torch` does for an installed torch_npu >= 2.5: torch loads the `torch.backends`
    entry point torch_npu declares (Ascend/pytorch setup.py: torch_npu = torch_npu:_autoload) unless
    TORCH_DEVICE_BACKEND_AUTOLOAD is not "1" (torch/__init__.py, _is_device_backend_autoload_enabled).
    The stand-in has no installed entry point, so the simulator loads it here, before the program."""
    import importlib

    if os.getenv("TORCH_DEVICE_BACKEND_AUTOLOAD", "1") == "1":
        importlib.import_module("torch_npu")


def _check_script(script: str) -> str | None:
    """Why script cannot run (a usage error), or None."""
    if not os.path.exists(script):
        return f"{script}: no such file"
    if not os.path.isfile(script):
        return f"{script}: not a file"
    if not os.access(script, os.R_OK):
        return f"{script}: not readable"
    return None


def _run_each(scripts: list[str], autoload: bool) -> int:
    """Several small programs in this interpreter, one verdict each (banjia.npu_sim.each)."""
    if not scripts:
        return _usage_error("--each needs at least one script")
    for script in scripts:
        problem = _check_script(script)
        if problem:
            return _usage_error(problem)
    import torch  # noqa: F401 - as in run()

    from banjia.npu_sim import cuda_guard, each, standin

    cuda_guard.install()
    standin.install_finder()
    if autoload:
        _autoload_torch_npu()
    threading.excepthook = _thread_excepthook(threading.excepthook)
    return each.run_each(scripts, lambda path: _run_program(path, None))


def run(argv: list[str]) -> int:
    autoload = bool(argv) and argv[0] == AUTOLOAD
    if autoload:
        argv = argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if argv[0] == EACH:
        return _run_each(argv[1:], autoload)
    module: str | None = None
    script: str | None = None
    if argv[0] == "-m":
        if len(argv) < 2:
            return _usage_error("-m needs a module name")
        module, argv = argv[1], argv[1:]
        directory = os.getcwd()
    else:
        problem = _check_script(argv[0])
        if problem:
            return _usage_error(problem)
        script = os.path.abspath(argv[0])
        directory = os.path.dirname(os.path.realpath(argv[0]))

    import torch  # noqa: F401 - the guards and the device are set up on torch before the program starts

    from banjia.npu_sim import children, cuda_guard, frames, standin, verdict

    sys.argv = list(argv)
    sys.path[0] = directory
    frames.set_script_directory(os.path.dirname(script) if script else directory)
    results = children.prepare(directory, autoload)
    try:
        cuda_guard.install()
        standin.install_finder()
        if autoload:
            _autoload_torch_npu()
        threading.excepthook = _thread_excepthook(threading.excepthook)
        status = _run_program(script, module)
        sys.stdout.flush()
        reports = children.collect(results)
    finally:
        shutil.rmtree(results, ignore_errors=True)
    return verdict.judge(status, reports)
