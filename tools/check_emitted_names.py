#!/usr/bin/env python3
"""Checks that every torch_npu API name and environment variable banjia can emit is real.

    python3 tools/check_emitted_names.py [--data DATA_DIR]

Names come from what scan/migrate write (data/rules: rewrite targets, `replacement` and `message` texts,
plus the `import torch_npu` migrate inserts; data/shims: the torch_npu and torch.npu names the shim
modules migrate writes into a tree use) and what `env` suggests (data/env: CUDA->Ascend
equivalents, templates, advisor suggestions, did-you-mean names, replacement/use texts). Each
`torch.npu.*`, `torch_npu.*`, `torch.accelerator.*` and `torch.amp.*` name is resolved in the API lists
of data/api (extracted from the sources by tools/extract_npu_facts.py); each variable must be one
data/env documents (a `[[var]]` with a source). Reads data/ only. Prints one line per problem and per
name that only some torch_npu releases have; exit status 1 on a problem.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHECKED = re.compile(r"\b(?:torch_npu|torch\.npu|torch\.accelerator|torch\.amp)(?:\.[A-Za-z_][A-Za-z0-9_]*)*\*?")
ENV_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
# Text that names a module to say it LACKS something: checked the other way round (must be absent).
ABSENT_CLAIMS = {("torch-cuda-nccl", "torch.npu.nccl")}
# Members of objects that no module file spells out, each verified by reading the cited source.
VERIFIED_MEMBERS = {
    # torch_npu/npu/__init__.py: matmul = npu_config._allowHF32Matmul(), conv = _allowHF32Conv(); both
    # classes serve `allow_hf32` from __getattr__/__setattr__ (torch_npu/npu/npu_config.py).
    "torch.npu.matmul.allow_hf32", "torch.npu.conv.allow_hf32",
}


@dataclass(frozen=True)
class Emitted:
    name: str
    kind: str  # "api", "tensor-attribute", "device", "backend", "absent"
    origin: str  # file and entry it comes from
    min_torch_npu: str = ""  # the emitting rule's: first release said to have the name

    def __str__(self) -> str:
        return f"{self.origin}: {self.name}"


def load_toml(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def _names_in(text: str) -> list[str]:
    return [m.group(0) for m in CHECKED.finditer(text)]


def _target_names(table: Any) -> list[str]:
    """The checked names in the text a `[rule.target.NAME]` table makes migrate write or say: every
    string value (call templates, device expressions, replacement, message), not the `names` keys
    (the CUDA names matched), the summary (it describes the match), the source or the examples."""
    if isinstance(table, str):
        return _names_in(table)
    if isinstance(table, list):
        return [n for item in table for n in _target_names(item)]
    if isinstance(table, dict):
        return [n for key, value in table.items() if key not in ("source", "summary", "example") for n in _target_names(value)]
    return []


def rules_in(rules_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """(file name, rule) for every [[rule]] of data/rules."""
    return [(path.name, rule) for path in sorted(rules_dir.glob("*.toml")) for rule in load_toml(path).get("rule", [])]


def rule_emissions(rules_dir: Path) -> list[Emitted]:
    return emissions_of_rules(rules_in(rules_dir))


def emissions_of_rules(rules: list[tuple[str, dict[str, Any]]]) -> list[Emitted]:
    """What migrate writes and findings say for these rules (TOML tables, or the objects of
    `banjia scan --list-rules --format json`, which has the same fields)."""
    out: list[Emitted] = []
    for file, rule in rules:
        origin = f"{file}: rule {rule['id']}"
        since = rule.get("min_torch_npu") or ""
        rw = rule.get("rewrite") or {}
        names = rule.get("match", {}).get("names", [])
        if rw.get("kind") == "replace-module":
            src, dst = rw["from"], rw["to"]
            out.append(Emitted(dst, "api", origin + " (rewrite target)"))
            for n in names:  # migrate rewrites a name only when `from` is a component prefix of it
                if n == src or n.startswith(src + "."):
                    out.append(Emitted(dst + n[len(src):], "api", origin + " (rewrite of " + n + ")"))
        elif rw.get("kind") == "rename-last":
            out += [Emitted(n.rsplit(".", 1)[0] + "." + rw["to"], "api", origin + " (rename of " + n + ")")
                    for n in names]
        elif rw.get("kind") == "rename-attribute":
            out.append(Emitted(rw["to"], "tensor-attribute", origin))
        elif rw.get("kind") == "replace-in-string":
            # A backend name replaces NCCL's (backend-string and config backend rules); the rest are devices.
            kind = "backend" if rule["match"]["kind"] == "backend-string" or rw.get("from") == "nccl" else "device"
            out.append(Emitted(rw["to"], kind, origin))
        for field in ("replacement", "message"):
            for n in _names_in(rule.get(field) or ""):
                absent = (rule["id"], n) in ABSENT_CLAIMS
                out.append(Emitted(n, "absent" if absent else "api", f"{origin} ({field})", since))
        for target, table in (rule.get("target") or {}).items():
            out += [Emitted(n, "api", f"{origin} (target {target})", since) for n in _target_names(table)]
    # src/migrate/python_rewriter.cpp inserts `import torch_npu` into files it rewrites.
    out.append(Emitted("torch_npu", "api", "src/migrate/python_rewriter.cpp (import-torch-npu)"))
    return out


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def shim_emissions(shims_dir: Path) -> list[Emitted]:
    """The checked names a shim module (data/shims/*.py) uses: attribute chains on torch_npu and
    torch.npu (through the names its imports bind), `from torch_npu... import X`, and
    getattr(torch_npu, "X") with a literal name. Read with ast: a shim is Python, not prose."""
    out: list[Emitted] = []
    for path in sorted(shims_dir.glob("*.py")) if shims_dir.is_dir() else []:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        bound: dict[str, str] = {}  # local name -> the module it is bound to
        names: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                    names.append(a.name)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names += [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
        for node in ast.walk(tree):
            chain = None
            if isinstance(node, ast.Attribute):
                chain = _dotted(node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
                    len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                head = _dotted(node.args[0])
                chain = f"{head}.{node.args[1].value}" if head else None
            if chain:
                head, _, rest = chain.partition(".")
                names.append(bound.get(head, head) + ("." + rest if rest else ""))
        origin = f"shims/{path.name}"
        out += [Emitted(n, "api", origin) for n in dict.fromkeys(names) if CHECKED.fullmatch(n)]
    return out


def env_emissions(env_dir: Path) -> tuple[list[Emitted], list[Emitted]]:
    """(API names in env texts, variable names env can suggest); a variable's kind says whether it
    must be an environment variable ("env") or may also be a torch.npu.set_option key ("key")."""
    api: list[Emitted] = []
    variables: list[Emitted] = []
    cuda = load_toml(env_dir / "cuda.toml")
    variables += [Emitted(c["ascend"], "env", f"cuda.toml: {c['name']} (ascend)") for c in cuda["cuda"] if "ascend" in c]
    for t in load_toml(env_dir / "templates.toml")["template"]:
        variables += [Emitted(s["name"], "env", f"templates.toml: {t['scenario']}") for s in t["setting"]]
    for a in load_toml(env_dir / "advisor.toml")["advice"]:
        variables.append(Emitted(a["name"], "env", f"advisor.toml: {a['name']}"))
        variables += [Emitted(n, "env", f"advisor.toml: {a['name']} (suggestion)")
                      for n in ENV_NAME.findall(a["suggestion"])]
    for n in load_toml(env_dir / "names.toml")["name"]:
        origin = f"names.toml: {n['name']}"
        variables += [Emitted(d, "key", origin + " (did_you_mean)") for d in n.get("did_you_mean", [])]
        api += [Emitted(x, "api", origin + " (use)") for x in _names_in(n.get("use", ""))]
    for file in ("torch_npu.toml", "cann.toml", "hccl.toml", "set_option.toml"):
        for v in load_toml(env_dir / file)["var"]:
            for field in ("replacement", "api"):
                api += [Emitted(x, "api", f"{file}: {v['name']} ({field})") for x in _names_in(v.get(field, ""))]
    return api, variables


def documented_variables(env_dir: Path) -> dict[str, str]:
    """Name -> class of every variable data/env documents with a source."""
    out: dict[str, str] = {}
    for file in ("torch_npu.toml", "cann.toml", "hccl.toml", "set_option.toml"):
        for v in load_toml(env_dir / file)["var"]:
            if v.get("source"):
                out[v["name"]] = v.get("class", "")
    return out


class Api:
    """One torch_npu release's API lists (data/api/torch_npu-*.toml) with torch's (data/api/torch-*.toml)."""

    def __init__(self, npu: dict[str, Any], torch: dict[str, Any]) -> None:
        self.meta = npu["meta"]
        self.release = str(self.meta["torch_npu_release"]).lstrip("vV")
        self.modules: dict[str, Any] = {**npu["module"], **torch["module"]}
        self.custom_ops = set(npu["ops"]["custom"])
        self.aliases = dict(entry.split("=", 1) for entry in self.meta["device_modules"])
        self.patches = set(self.meta["torch_patches"])

    def _members(self, module: str) -> set[str]:
        m = self.modules[module]
        extra = self.custom_ops if module == "torch_npu" else set()
        declared = {"__all__"} if m["all"] else set()
        return set(m["all"]) | set(m["names"]) | set(m["submodules"]) | extra | declared

    def missing(self, name: str) -> str | None:
        """Why `name` is not in this API (None when it is)."""
        if name in self.patches or name in VERIFIED_MEMBERS:
            return None
        for alias, target in self.aliases.items():
            if name == alias or name.startswith(alias + "."):
                name = target + name[len(alias):]
        wildcard = name.endswith("*")
        parts = name.rstrip("*").rstrip(".").split(".")
        cut = max((i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.modules), default=0)
        if cut == 0:
            return f"no module {parts[0]} in the API lists"
        module, rest = ".".join(parts[:cut]), parts[cut:]
        if not rest:
            return None
        members = self._members(module)
        if wildcard and len(rest) == 1:
            return None if any(m.startswith(rest[0]) for m in members) else f"no name {rest[0]}* in {module}"
        if rest[0] not in members:
            return f"{module} has no {rest[0]}"
        if len(rest) == 1:
            return None
        values = self.meta["pybind_enums"].get(rest[0])
        if values is not None and len(rest) == 2:
            return None if rest[1] in values else f"{module}.{rest[0]} has no value {rest[1]}"
        return f"{module}.{rest[0]}.{'.'.join(rest[1:])}: a member no module file lists (verify it and add it " \
               "to VERIFIED_MEMBERS)"

    def value_missing(self, e: Emitted) -> str | None:
        if e.kind == "tensor-attribute":
            ok = e.name in self.meta["tensor_methods"] or f"torch.Tensor.{e.name}" in self.patches
            return None if ok else f"torch.Tensor.{e.name} is neither generated nor patched"
        if e.kind == "device":
            return None if e.name == self.meta["privateuse1_backend"] else f"device type {e.name!r} is not registered"
        if e.kind == "backend":
            return None if e.name in self.meta["distributed_backends"] else f"backend {e.name!r} is not registered"
        if e.kind == "absent":
            return None if self.missing(e.name) else f"{e.name} exists, but the text says it does not"
        return self.missing(e.name)


def load_apis(api_dir: Path) -> list[Api]:
    torch_files = sorted(api_dir.glob("torch-*.toml"))
    if len(torch_files) != 1:
        raise FileNotFoundError(f"expected one torch-*.toml in {api_dir}, found {len(torch_files)}")
    torch = load_toml(torch_files[0])
    apis = [Api(load_toml(p), torch) for p in sorted(api_dir.glob("torch_npu-*.toml"))]
    if not apis:
        raise FileNotFoundError(f"no torch_npu-*.toml in {api_dir}")
    return sorted(apis, key=lambda a: release_key(a.release))


def release_key(release: str) -> tuple[int, ...]:
    """`26.2.0-beta.1-pytorch2.13.0` -> (26, 2, 0): a pre-release counts as its release."""
    return tuple(int(x) for x in release.split("-")[0].split("."))


@dataclass
class Report:
    problems: list[str]
    only_some_releases: dict[str, list[str]]  # "origin: name" -> releases that lack it
    checked: int


def check(data: Path, rules: list[tuple[str, dict[str, Any]]] | None = None) -> Report:
    """Checks the rules of data/rules, or `rules` (e.g. the catalogue banjia itself lists)."""
    apis = load_apis(data / "api")
    newest = apis[-1]
    api_env, variables = env_emissions(data / "env")
    emitted = emissions_of_rules(rules if rules is not None else rules_in(data / "rules")) + api_env + \
        shim_emissions(data / "shims")
    problems: list[str] = []
    partial: dict[str, list[str]] = {}
    for e in emitted:
        reasons = {a.release: a.value_missing(e) for a in apis}
        if reasons[newest.release]:
            problems.append(f"{e}: {reasons[newest.release]} (torch_npu {newest.release})")
            continue
        lacking = [r for r, why in reasons.items() if why]
        if not lacking:
            continue
        partial[str(e)] = lacking
        if not e.min_torch_npu:
            problems.append(f"{e}: not in torch_npu {', '.join(lacking)}; the rule must say from which release "
                            "on it exists (min_torch_npu)")
        else:
            wrong = [r for r in reasons if (r in lacking) != (release_key(r) < release_key(e.min_torch_npu))]
            if wrong:
                problems.append(f"{e}: min_torch_npu = {e.min_torch_npu} contradicts torch_npu {', '.join(wrong)}")
    documented = documented_variables(data / "env")
    for v in variables:
        if v.name not in documented:
            problems.append(f"{v}: not a variable data/env documents")
        elif v.kind == "env" and documented[v.name] == "set_option":
            problems.append(f"{v}: a torch.npu.set_option key, not an environment variable")
    return Report(problems, partial, len(emitted) + len(variables))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parent.parent / "data")
    report = check(ap.parse_args(argv).data)
    for p in report.problems:
        print(f"problem: {p}")
    for name, releases in sorted(report.only_some_releases.items()):
        print(f"not in torch_npu {', '.join(releases)}: {name}")
    print(f"{report.checked} names checked, {len(report.problems)} problems")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
