"""Which code a stack frame belongs to: the user's program, torch, the simulator, or the rest."""
from __future__ import annotations

import functools
import importlib.util
import linecache
import os
import site
import sys
import sysconfig
from types import FrameType, TracebackType
from typing import NamedTuple


def _package_directory(name: str) -> str:
    """Where a package is, without importing it (child processes read frames before torch loads)."""
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None and spec.origin else os.path.join("<no package>", name, "")
    return os.path.dirname(os.path.abspath(origin)) + os.sep


_SIMULATOR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_TORCH = _package_directory("torch")


def _prefixes(paths: list[str]) -> tuple[str, ...]:
    return tuple(sorted({os.path.abspath(p) + os.sep for p in paths if p}, key=len, reverse=True))


_TORCH_CUDA = os.path.join(_TORCH, "cuda") + os.sep
_SITE = _prefixes([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
                   *site.getsitepackages(), site.getusersitepackages()])
_STDLIB = _prefixes([sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]])
_BANJIA = os.path.dirname(_SIMULATOR.rstrip(os.sep)) + os.sep

SIMULATOR, TORCH, PYTHON, LIBRARY, USER = "simulator", "torch", "python", "library", "user"

_script_dir: list[str] = [os.getcwd() + os.sep]


def set_script(path: str) -> None:
    """The program's file: names in messages are shown relative to its directory."""
    set_script_directory(os.path.dirname(os.path.abspath(path)))


def set_script_directory(directory: str) -> None:
    _script_dir[0] = os.path.abspath(directory) + os.sep


def is_torch_helper(path: str) -> bool:
    """Whether a process's main file is one of torch's helper programs (Inductor's compile workers)."""
    return os.path.abspath(path).startswith(os.path.join(_TORCH, "_inductor") + os.sep)


@functools.lru_cache(maxsize=4096)
def kind(filename: str) -> str:
    if filename.startswith("<"):
        return PYTHON  # frozen importlib, <string>, <stdin>
    path = os.path.abspath(filename)
    if path.startswith(_SIMULATOR):
        return SIMULATOR
    if path.startswith(_TORCH):
        return TORCH
    if path.startswith(_BANJIA) or path.startswith(_SITE):
        return LIBRARY
    if path.startswith(_STDLIB):
        return PYTHON
    return USER


def in_torch_cuda(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_TORCH_CUDA)


def _outer(frame: FrameType | None) -> FrameType | None:
    return frame.f_back if frame is not None else None


def called_from_torch() -> bool:
    """Whether the nearest caller that is neither the simulator nor the standard library is torch."""
    frame = _outer(sys._getframe(1))
    while frame is not None:
        owner = kind(frame.f_code.co_filename)
        if owner not in (SIMULATOR, PYTHON):
            return owner == TORCH
        frame = frame.f_back
    return False


def caller_is_torch_or_simulator(frame: FrameType | None) -> bool:
    """Whether the nearest frame from `frame` outwards that is not the standard library is torch's
    or the simulator's."""
    while frame is not None:
        owner = kind(frame.f_code.co_filename)
        if owner != PYTHON:
            return owner in (TORCH, SIMULATOR)
        frame = frame.f_back
    return False


def display(filename: str) -> str:
    path = os.path.abspath(filename)
    return path[len(_script_dir[0]):] if path.startswith(_script_dir[0]) else path


class Location(NamedTuple):
    file: str  # as shown in messages
    line: int
    source: str  # the text of that line, stripped ("" when unavailable)


def _location(frame: FrameType) -> Location:
    filename = frame.f_code.co_filename
    return Location(display(filename), frame.f_lineno, linecache.getline(filename, frame.f_lineno).strip())


def program_location(tb: TracebackType | None) -> str:
    """FILE:LINE of the innermost frame of the program in a traceback (else of its innermost frame)."""
    found = "<unknown>:0"
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if kind(filename) == USER or found == "<unknown>:0":
            found = f"{display(filename)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def user_location() -> Location:
    """Where the innermost frame of the user's program is (else the innermost frame outside the
    simulator, for code that runs without any frame of the program on its stack)."""
    frame = _outer(sys._getframe(1))
    fallback: Location | None = None
    while frame is not None:
        owner = kind(frame.f_code.co_filename)
        if owner == USER:
            return _location(frame)
        if fallback is None and owner != SIMULATOR:
            fallback = _location(frame)
        frame = frame.f_back
    return fallback or Location("<unknown>", 0, "")
