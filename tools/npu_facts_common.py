"""Shared pieces of tools/extract_npu_facts.py: reading files of a git repository at a ref, the subset of
YAML the op tables use, and a small TOML writer (compact inline tables, stable order).

The standard library has no YAML parser and the project's venv has no PyYAML; the op tables use only
block mappings, block sequences of scalars or of `func:` mappings, and flow sequences, which
`parse_op_yaml` reads line by line.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence, Union

# Sequence and Mapping, not list and dict: a list[str] is then a TomlValue (they are covariant).
TomlValue = Union[str, bool, int, Sequence["TomlValue"], Mapping[str, "TomlValue"]]


@dataclass(frozen=True)
class GitTree:
    """One commit of a repository (a bare mirror or a checkout), read with git, never checked out."""

    git_dir: Path
    ref: str
    repo_name: str  # "Ascend/pytorch", as sources cite it

    def _git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.git_dir), *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise FileNotFoundError(f"git {' '.join(args)} in {self.git_dir}: {done.stderr.strip()}")
        return done.stdout

    def commit(self) -> str:
        return self._git("rev-parse", f"{self.ref}^{{commit}}").strip()

    def read(self, path: str) -> str:
        return self._git("show", f"{self.commit()}:{path}").removeprefix("\ufeff")  # some files carry a BOM

    def exists(self, path: str) -> bool:
        return bool(self._git("ls-tree", self.commit(), "--", path).strip())

    def files(self, under: str) -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", self.commit(), "--", under)
        return [line for line in out.splitlines() if line]

    def submodule_commit(self, path: str) -> str:
        """The commit a submodule (gitlink) of this tree points at."""
        fields = self._git("ls-tree", self.commit(), "--", path).split()
        if len(fields) < 3 or fields[1] != "commit":
            raise FileNotFoundError(f"{path} is not a submodule at {self.ref}")
        return fields[2]

    def grep(self, pattern: str, under: str) -> list[tuple[str, str]]:
        """(path, line) for lines matching a fixed string."""
        done = subprocess.run(["git", "-C", str(self.git_dir), "grep", "-F", "-e", pattern, self.commit(), "--", under],
                              capture_output=True, text=True, check=False)
        hits = []
        for line in done.stdout.splitlines():
            _, path, text = line.split(":", 2)
            hits.append((path, text))
        return hits

    def cite(self, path: str) -> str:
        return f"{self.repo_name} : {path} @ {self.commit()}"


@dataclass
class YamlEntry:
    """One item of a block sequence: a bare scalar (`- name`) or a mapping that starts `- func: ...`."""

    func: str
    keys: dict[str, str] = field(default_factory=dict)  # only the entry's own scalar keys


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse_op_yaml(text: str) -> tuple[dict[str, str], dict[str, list[YamlEntry]]]:
    """Top-level scalar keys, and top-level keys holding a sequence of entries. Nested mappings inside an
    entry (gen_opapi, dispatch, ...) are skipped: no fact taken from these files lives there."""
    scalars: dict[str, str] = {}
    sections: dict[str, list[YamlEntry]] = {}
    current: list[YamlEntry] | None = None
    entry: YamlEntry | None = None
    entry_indent = 0
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if indent == 0:
            key, _, value = body.partition(":")
            entry = None
            if value.strip():
                scalars[key] = _scalar(value)
                current = None
            else:
                current = sections.setdefault(key, [])
            continue
        if current is None:
            continue
        if body.startswith("- "):
            item = body[2:].strip()
            entry_indent = indent + 2
            if item.startswith("func:"):
                entry = YamlEntry(_scalar(item[len("func:"):]))
            else:
                entry = YamlEntry(_scalar(item))
            current.append(entry)
        elif entry is not None and indent == entry_indent:
            key, _, value = body.partition(":")
            if value.strip():
                entry.keys[key.strip()] = value.strip()
    return scalars, sections


def flow_list(text: str) -> list[str]:
    """`[v2.1, newest]` -> ["v2.1", "newest"]."""
    return [_scalar(part) for part in text.strip().strip("[]").split(",") if part.strip()]


def strings(value: TomlValue) -> list[str]:
    """A TOML array of strings as a list (the tables this tool builds hold only such arrays)."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"expected an array of strings, got {value!r}")
    return [str(v) for v in value]


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def toml_inline(value: TomlValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_inline(v) for v in value) + "]"
    return "{ " + ", ".join(f"{_toml_key(k)} = {toml_inline(v)}" for k, v in value.items()) + " }"


def toml_array(key: str, items: Sequence[TomlValue], width: int = 110) -> str:
    """A long array, wrapped at `width`; one element per line when the elements are tables."""
    if not items:
        return f"{key} = []\n"
    rendered = [toml_inline(v) for v in items]
    if any(isinstance(v, Mapping) for v in items):
        return f"{key} = [\n" + "".join(f"  {r},\n" for r in rendered) + "]\n"
    lines, line = [], "  "
    for r in rendered:
        if len(line) + len(r) + 2 > width and line.strip():
            lines.append(line.rstrip())
            line = "  "
        line += r + ", "
    lines.append(line.rstrip())
    return f"{key} = [\n" + "\n".join(lines) + "\n]\n"


def toml_table(name: str, fields: dict[str, TomlValue]) -> str:
    """A table; a field holding a long table becomes a sub-table with one inline value per line."""
    out = f"[{name}]\n"
    subtables = ""
    for key, value in fields.items():
        if isinstance(value, Mapping) and len(toml_inline(value)) > 100:
            subtables += f"\n[{name}.{_toml_key(key)}]\n"
            subtables += "".join(f"{_toml_key(k)} = {toml_inline(v)}\n" for k, v in value.items())
        elif isinstance(value, Sequence) and not isinstance(value, str) and len(toml_inline(value)) > 100:
            out += toml_array(_toml_key(key), value)
        else:
            out += f"{_toml_key(key)} = {toml_inline(value)}\n"
    return out + subtables
