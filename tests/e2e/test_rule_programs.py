"""Every rule that claims `automatic` is shown to work by running what it writes.

For each migration target, each automatic rule of data/rules must have an example that runs
(`run = true` on a Python example; `program` for a configuration file, the program that reads it).
All of them are written into one tree, `banjia migrate` migrates the tree as a user would, and the
simulator runs every program (`python -m banjia.npu_sim --each`, one interpreter per batch):

- the original must stop at a CUDA use, and not before the first line the migration changes (for a
  Python example; difflib decides which line that is, not banjia): the example exercises CUDA where
  the rule rewrites it (a device value stored on one line is used on a later one);
- the migrated program must run to the end on the simulated NPU, with its ops on npu.

The migrated programs run with `--autoload`, as an installed torch_npu (>= 2.5) loads at `import
torch` through its entry point: the accelerator target inserts no `import torch_npu`, and a
configuration file's program is no Python that migrate changes.

A rule that redirects imports to a shim (`redirect-import`: flash_attn, xformers, apex) has its
examples migrated as the tree migrates them, each in a directory of its own, so the shim is written
beside the program, and that is checked. The original runs as on a GPU machine with the library
installed: a stand-in package of each module the shim stands in for (its names are CUDA kernels,
never reached, since the program stops at its first CUDA use); the migrated program runs without
them, so it must not import the library. While data/shims/<module>.py is a placeholder (it contains
PLACEHOLDER_MARK: every function raises NotImplementedError), its migrated programs cannot run, and
that last check is skipped, saying so; the real shims do not contain the mark.
"""
from __future__ import annotations

import difflib
import os
import pathlib
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TARGETS = ("npu", "accelerator")
VERDICT = re.compile(r"^banjia npu_sim: each (\S+): (.*)$")
CUDA_USE = re.compile(r"^(\S+?):(\d+): CUDA used")
PLACEHOLDER_MARK = "BANJIA_PLACEHOLDER_SHIM"
STAND_IN = '''"""A stand-in for a CUDA-only library, as a GPU machine has it installed (tests/e2e/test_rule_programs.py)."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def cuda_kernel(*args, **kwargs):
        raise RuntimeError(f"{__name__}.{name}: a CUDA kernel of the stand-in library")
    return cuda_kernel
'''


@dataclass
class Case:
    target: str
    rule: str
    index: int
    example: dict

    shim: str | None = None  # the module its imports are redirected to, for a redirect-import rule

    @property
    def name(self) -> str:
        return f"{self.target}-{self.rule}-{self.index}"


def forms(rule: dict) -> dict[str, tuple[str, list[dict]]]:
    """The rule per target: (fix, examples), as the catalogue reads [rule.target.NAME]."""
    accelerator = rule.get("target", {}).get("accelerator")
    out = {"npu": (rule["fix"], rule.get("example", []))}
    out["accelerator"] = (accelerator.get("fix", rule["fix"]), accelerator.get("example", [])) if accelerator \
        else out["npu"]
    return out


def shim_of(rule: dict, target: str) -> str | None:
    """The shim module a redirect-import rule's form for `target` imports from, else None."""
    form = rule.get("target", {}).get(target, rule) if target != "npu" else rule
    rewrite = form.get("rewrite", {})
    return rewrite["to"] if rewrite.get("kind") == "redirect-import" else None


def stand_in_libraries(root: pathlib.Path) -> pathlib.Path:
    """A directory with a stand-in package for every module a shim stands in for."""
    for rule in rules():
        if shim_of(rule, "npu"):
            for module in rule["match"]["provides"]:
                package = pathlib.Path(*module.split("."))
                for level in [package, *package.parents][:-1]:  # without the last parent, "."
                    (root / level).mkdir(parents=True, exist_ok=True)
                    (root / level / "__init__.py").write_text(STAND_IN, encoding="utf-8")
    return root


def is_placeholder(shim: str) -> bool:
    return PLACEHOLDER_MARK in (REPO / "data" / "shims" / f"{shim}.py").read_text(encoding="utf-8")


def rules() -> list[dict]:
    found: list[dict] = []
    for path in sorted((REPO / "data" / "rules").glob("*.toml")):
        found.extend(tomllib.loads(path.read_text(encoding="utf-8")).get("rule", []))
    return found


def runs(example: dict) -> bool:
    return bool(example.get("run")) or "program" in example


def cases() -> list[Case]:
    return [Case(target, rule["id"], i, e, shim_of(rule, target)) for rule in rules()
            for target, (fix, examples) in forms(rule).items() if fix == "automatic"
            for i, e in enumerate(examples) if runs(e)]


def test_every_automatic_rule_has_an_example_that_runs() -> None:
    missing = [f"{rule['id']} (--target {target})" for rule in rules() for target, (fix, examples) in forms(rule).items()
               if fix == "automatic" and not any(runs(e) for e in examples)]
    assert not missing, "automatic rules without an example that runs (run = true / program): " + ", ".join(missing)


def first_changed_line(before: str, after: str) -> int:
    """The first line of `before` that the migration replaced or deleted (insertions, such as an
    added import, change no line of the original)."""
    ops = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False).get_opcodes()
    return next(i1 + 1 for tag, i1, _, _, _ in ops if tag in ("replace", "delete"))


def simulate(scripts: list[pathlib.Path], autoload: bool, libraries: pathlib.Path | None = None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "python"), *([str(libraries)] if libraries else [])]))
    command = [sys.executable, "-m", "banjia.npu_sim", *(["--autoload"] if autoload else []), "--each", *map(str, scripts)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=scripts[0].parents[2])
    verdicts = {}
    for line in done.stderr.splitlines():
        if m := VERDICT.match(line):
            verdicts[m.group(1)] = m.group(2)
    assert len(verdicts) == len(scripts), done.stderr[-3000:]
    return verdicts


@dataclass
class Result:
    before: str  # the original's verdict
    after: str  # the migrated program's verdict
    line: int | None  # the first line the migration changes (the original must not stop before it)
    shim_beside: bool  # for a redirect-import rule: its shim was written beside the program, byte for byte


@pytest.fixture(scope="module")
def results(banjia_bin: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    root = tmp_path_factory.mktemp("rule-programs")
    libraries = stand_in_libraries(root / "cuda-only-libraries")
    out: dict[str, Result] = {}
    for target in TARGETS:
        mine = [c for c in cases() if c.target == target]
        tree, migrated = root / target, root / f"{target}-migrated"
        programs = {}
        for c in mine:
            d = tree / c.name
            d.mkdir(parents=True)
            (d / c.example.get("file", "example.py")).write_text(c.example["before"], encoding="utf-8")
            if "program" in c.example:
                (d / "program.py").write_text(c.example["program"], encoding="utf-8")
            programs[c.name] = "program.py" if "program" in c.example else c.example.get("file", "example.py")
        done = subprocess.run([banjia_bin, "migrate", str(tree), "-o", str(migrated), "--target", target],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        befores = simulate([tree / c.name / programs[c.name] for c in mine], autoload=False, libraries=libraries)
        afters = simulate([migrated / c.name / programs[c.name] for c in mine], autoload=True)
        for c in mine:
            before_path, after_path = tree / c.name / programs[c.name], migrated / c.name / programs[c.name]
            line = None if "program" in c.example else first_changed_line(before_path.read_text(), after_path.read_text())
            shim = migrated / c.name / f"{c.shim}.py"
            beside = c.shim is not None and shim.is_file() and \
                shim.read_bytes() == (REPO / "data" / "shims" / f"{c.shim}.py").read_bytes()
            out[c.name] = Result(befores[str(before_path)], afters[str(after_path)], line, beside)
    return out


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_original_stops_at_its_cuda_use_and_the_migration_runs(results, case: Case) -> None:
    r = results[case.name]
    stop = CUDA_USE.match(r.before)
    assert stop, f"the original did not stop at a CUDA use: {r.before}"
    if r.line is not None:
        assert int(stop.group(2)) >= r.line, \
            f"stopped at line {stop.group(2)}, before line {r.line}, the first the migration changes: {r.before}"
    if case.shim:
        assert r.shim_beside, f"migrate wrote no {case.shim}.py (banjia's, byte for byte) beside the program"
        if is_placeholder(case.shim):
            pytest.skip(f"placeholder shim: data/shims/{case.shim}.py contains {PLACEHOLDER_MARK} (its functions raise "
                        f"NotImplementedError); the migrated program runs once the real shim replaces it")
    assert r.after.startswith("ok"), f"the migrated program did not run on the simulated NPU: {r.after}"
