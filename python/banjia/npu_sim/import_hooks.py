"""Run a callback on a module right after its code has run, or now if it is loaded already.

The simulator adapts parts of torch that cost seconds to import (Dynamo, Inductor) only when the
program imports them.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from typing import Callable, Sequence

Callback = Callable[[types.ModuleType], None]


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for the watched names it asks the finders after it for the spec and
    makes the loader call the callbacks once the module has been executed."""

    def __init__(self) -> None:
        self.callbacks: dict[str, list[Callback]] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        callbacks = self.callbacks.pop(fullname, None)
        if callbacks is None:
            return None
        spec = _find_elsewhere(self, fullname, path, target)
        if spec is None or spec.loader is None:
            self.callbacks[fullname] = callbacks  # not importable now; perhaps later
            return None
        exec_module = spec.loader.exec_module

        def exec_then_call_back(module: types.ModuleType) -> None:
            exec_module(module)
            for callback in callbacks:
                callback(module)

        setattr(spec.loader, "exec_module", exec_then_call_back)
        return spec


def _find_elsewhere(hook: _AfterImport, fullname: str, path: Sequence[str] | None,
                    target: types.ModuleType | None) -> importlib.machinery.ModuleSpec | None:
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if finder is hook or find_spec is None:
            continue
        spec: importlib.machinery.ModuleSpec | None = find_spec(fullname, path, target)
        if spec is not None:
            return spec
    return None


_HOOK = _AfterImport()


def after_import(name: str, callback: Callback) -> None:
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    _HOOK.callbacks.setdefault(name, []).append(callback)
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)
