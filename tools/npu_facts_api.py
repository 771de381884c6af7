"""Public Python API of a torch_npu release or of torch, for tools/extract_npu_facts.py: each module's
`__all__` and module-level names, read from the files with `ast` (nothing is imported), plus the names
torch_npu creates at import time that no module file spells out: the device module it registers, the
attributes it assigns on torch, the Tensor methods torch generates for the renamed PrivateUse1
backend, the values of its pybind11 enums, and the custom ops it exports from torch.ops.npu.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Callable

from npu_facts_common import GitTree, TomlValue

Reader = Callable[[str], str]


def module_name(path: str) -> str | None:
    """`torch_npu/npu/amp/__init__.py` -> `torch_npu.npu.amp`; None for private modules and non-Python."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if any(p.startswith("_") for p in parts):
        return None
    return ".".join(parts)


def _strings(node: ast.expr) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                      for e in node.elts):
        return [str(e.value) for e in node.elts if isinstance(e, ast.Constant)]
    return None


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module-level statements, including those under module-level if/try (version switches)."""
    out: list[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.If):
            out += _top_level(stmt.body) + _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            out += _top_level(stmt.body) + _top_level(stmt.orelse) + _top_level(stmt.finalbody)
            for h in stmt.handlers:
                out += _top_level(h.body)
    return out


def module_names(source: str) -> tuple[list[str], list[str]]:
    """(`__all__` as far as it is literal, every module-level binding)."""
    tree = ast.parse(source)
    declared: list[str] = []
    bound: set[str] = set()
    for stmt in _top_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(stmt.name)
        elif isinstance(stmt, ast.ImportFrom):  # re-exports; plain `import os` binds no API name
            for alias in stmt.names:
                if alias.name != "*":
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:  # `x = ...` and `x, y = ...`; not `os.environ[...] = ...`
                elts = t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
                bound.update(n.id for n in elts if isinstance(n, ast.Name))
            names = _strings(stmt.value) if stmt.value is not None else None
            if names is not None and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                declared = declared + names if isinstance(stmt, ast.AugAssign) else names
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            f = call.func
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "__all__"
                    and call.args):
                arg = call.args[0]
                if f.attr == "extend" and (names := _strings(arg)) is not None:
                    declared += names
                elif f.attr == "append" and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    declared.append(arg.value)
    return declared, sorted(bound)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)) is not None:
        return f"{base}.{node.attr}"
    return None


def torch_side_effects(source: str) -> dict[str, list[str]]:
    """What a torch_npu file does to torch: `torch.X = ...`, `setattr(torch.X, "y", ...)`, the
    `_PUBLIC_API_ALIASES` table, `_register_device_module(name, module)`, the PrivateUse1 rename,
    whether Tensor methods are generated for it, and the torch.distributed backends it registers."""
    out: dict[str, list[str]] = {"patched": [], "device_modules": [], "backend": [], "tensor_methods": [],
                                 "dist_backends": []}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                name = _dotted(t)
                if name and name.startswith("torch.") and isinstance(t, ast.Attribute):
                    out["patched"].append(name)
            if any(isinstance(t, ast.Name) and t.id == "_PUBLIC_API_ALIASES" for t in node.targets) and \
                    isinstance(node.value, ast.List):
                for pair in node.value.elts:
                    if (names := _strings(pair)) and len(names) == 2:
                        out["patched"].append("torch." + names[0])
        elif isinstance(node, ast.Call):
            fn = _dotted(node.func) or ""
            args = node.args
            if fn == "setattr" and len(args) >= 2 and isinstance(args[1], ast.Constant) and \
                    isinstance(args[1].value, str) and (owner := _dotted(args[0])) and owner.startswith("torch."):
                out["patched"].append(f"{owner}.{args[1].value}")
            elif fn.endswith("_register_device_module") and len(args) == 2 and isinstance(args[0], ast.Constant) \
                    and isinstance(args[0].value, str):
                out["device_modules"].append(f"torch.{args[0].value}={_dotted(args[1])}")
            elif fn.endswith("Backend.register_backend") and args and isinstance(args[0], ast.Constant):
                out["dist_backends"].append(str(args[0].value))
            elif fn.endswith("rename_privateuse1_backend") and args and isinstance(args[0], ast.Constant):
                out["backend"].append(str(args[0].value))
            elif fn.endswith("generate_methods_for_privateuse1_backend"):
                kw = {k.arg: k.value for k in node.keywords}
                flag = kw.get("for_tensor")
                if isinstance(flag, ast.Constant) and flag.value is True:
                    out["tensor_methods"].append("generated")
    return out


ENUM = re.compile(r'py::enum_<[^>]*>\(\s*\w+\s*,\s*"(\w+)"\s*\)((?:\s*\.value\(\s*"\w+"[^)]*\))+)')


def pybind_enums(source: str) -> dict[str, list[str]]:
    return {m.group(1): re.findall(r'\.value\(\s*"(\w+)"', m.group(2)) for m in ENUM.finditer(source)}


def modules_table(paths: list[str], read: Reader, cite: Callable[[str], str]) -> dict[str, dict[str, TomlValue]]:
    """Per public module: `all` (its literal __all__), `names` (other module-level bindings)
    and `submodules` (public child modules, reachable as attributes once imported)."""
    modules: dict[str, dict[str, TomlValue]] = {}
    names = {p: module_name(p) for p in paths}
    public = {m for m in names.values() if m}
    for path, mod in sorted(names.items()):
        if mod is None:
            continue
        declared, bound = module_names(read(path))
        children = sorted(c.rsplit(".", 1)[1] for c in public if c.rsplit(".", 1)[0] == mod and "." in c)
        modules[mod] = {"source": cite(path), "all": declared,
                        # private names too: documented APIs such as torch.npu.memory._record_memory_history
                        "names": [n for n in bound if not (n.startswith("__") and n != "__version__")
                                  and n not in declared],
                        "submodules": children}
    return modules


def torch_npu_api(tree: GitTree, custom_ops: list[str], exposed: list[str]) -> dict[str, dict[str, TomlValue]]:
    files = tree.files("torch_npu")
    effects: dict[str, list[str]] = {"patched": [], "device_modules": [], "backend": [], "tensor_methods": [],
                                     "dist_backends": []}
    for path in files:
        # contrib/transfer_to_npu.py and testing/ patch torch only when a user imports them.
        if path.endswith(".py") and not path.startswith(("torch_npu/contrib/", "torch_npu/testing/")):
            for key, values in torch_side_effects(tree.read(path)).items():
                effects[key] += values
    enums: dict[str, TomlValue] = {}
    for path in sorted({p for p, _ in tree.grep("py::enum_<", "torch_npu/csrc")}):
        enums.update({k: v for k, v in pybind_enums(tree.read(path)).items()})
    backend = sorted(set(effects["backend"]))
    meta: dict[str, TomlValue] = {
        "source": f"{tree.repo_name} : torch_npu/**/*.py @ {tree.commit()} (read with ast: __all__ and module-level "
                  "bindings of every public module)",
        "device_modules": sorted(set(effects["device_modules"])),
        "privateuse1_backend": backend[0] if backend else "",
        # torch/utils/backend_registration.py: `{name}()` and `is_{name}` on torch.Tensor
        "tensor_methods": [backend[0], f"is_{backend[0]}"] if backend and effects["tensor_methods"] else [],
        "distributed_backends": sorted(set(effects["dist_backends"])),
        "torch_patches": sorted({p for p in effects["patched"] if not any(c.startswith("_") for c in p.split("."))}),
        "pybind_enums": enums,
    }
    ops: dict[str, TomlValue] = {
        "source": "torch.ops.npu.<op> is exported as torch_npu.<op>, and listed in torch_npu.__all__ when exposed "
                  "(Ascend/pytorch : torch_npu/__init__.py or torch_npu/_init/core/_exports.py; "
                  "torch_npu/utils/exposed_api.py is generated from the op tables): see data/ops",
        "custom": sorted(set(custom_ops)),
        "exposed": sorted(set(exposed))}
    modules = modules_table(files, tree.read, tree.cite)
    return {"meta": meta, "ops": ops, **{f'module."{k}"': v for k, v in modules.items()}}


def torch_api(site: Path, packages: list[str], version: str) -> dict[str, dict[str, TomlValue]]:
    root = site.parent
    files = sorted(str(p.relative_to(root)) for pkg in packages for p in (root / pkg.replace(".", "/")).rglob("*.py"))
    meta: dict[str, TomlValue] = {
        "source": f"pytorch/pytorch : {', '.join(pkg.replace('.', '/') + '/**/*.py' for pkg in packages)} @ v{version} "
                  "(the installed torch package of the project's .venv, read with ast)",
        "torch_version": version}
    return {"meta": meta,
            **{f'module."{k}"': v for k, v in modules_table(files, lambda p: (root / p).read_text(),
                                                          lambda p: f"pytorch/pytorch : {p} @ v{version}").items()}}
