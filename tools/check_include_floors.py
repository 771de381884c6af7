#!/usr/bin/env python3
"""Checks the include graph of src/: the floors of the modules built in floors (MODULE_FLOORS) and the
absence of unit cycles.

src/rules is built in floors, each a folder, each building only on the ones below it:

    core      the rule model (catalogue, match kinds' registry, what a match is)
    analyses  what is computed from an analysed Python file (device values, their flow, blocks)
    rewrites  the edits of the rewrite kinds
    kinds     one unit per match kind (its params, needles, matcher and index) and their list
    safety    which automatic rewrites stay safe where they are
    sources   one scanner per kind of source file (Python, shell, CUDA, dependency lists, configs)

src/env, src/trace and src/compare are built in the folders of a pipeline, each verb's command units
above them all (docs/design/env.md, trace.md, compare.md say what each folder holds):

    env       readers, model, analysis, report
    trace     model, readers, analysis, report     (the readers build the model)
    compare   readers, model, analysis, report     (the model is read from the readers' files)

A file may include files of its own floor and of the floors below; an include of a higher floor is
reported. A unit is a header and the files that implement it (name.h, name.cpp, name_<part>.cpp); a
cycle of units anywhere in src/ (a includes b, b includes a, through any files of theirs) is reported,
but for the pairs in SHARED_PRIVATE_HEADERS.

    tools/check_include_floors.py [SRC_DIR]       exit 0: clean; 1: a violation (each printed)
"""
import pathlib
import re
import sys
from typing import Dict, List, Set, Tuple

# Modules built in floors: their folders from the bottom up, and whether files may stand at the
# module's top level (a verb's command units, above every floor).
MODULE_FLOORS: Dict[str, Tuple[List[str], bool]] = {
    "rules": (["core", "analyses", "rewrites", "kinds", "safety", "sources"], False),
    "env": (["readers", "model", "analysis", "report"], True),
    "trace": (["model", "readers", "analysis", "report"], True),
    "compare": (["readers", "model", "analysis", "report"], True),
}
# Units whose parts share a private header that is not named for them, so the check sees two units in
# a loop where there is one: the Python lexer (a class the tokenizer's tokenize() runs, implemented in
# tokenizer.cpp and the lexer_*.cpp parts) and the import-statement parser of the module's parts.
SHARED_PRIVATE_HEADERS = [{"python/lexer", "python/tokenizer"}, {"python/import_parse", "python/module"}]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit_of(path: pathlib.Path, src: pathlib.Path) -> str:
    """name.h, name.cpp and name_<part>.cpp (beside a name.h) are one unit: src-relative, no suffix."""
    rel = path.relative_to(src).with_suffix("")
    if path.suffix in (".cpp", ".inc") and not path.with_suffix(".h").exists():
        stem = path.stem
        while "_" in stem:
            stem = stem.rsplit("_", 1)[0]
            if (path.parent / (stem + ".h")).exists():
                return str(rel.parent / stem)
    return str(rel)


def floor_of(rel: str) -> Tuple[str, int]:
    """(module, floor) of a src-relative path in a module of MODULE_FLOORS: the floor's position from
    the bottom, the top level one above the last floor, -1 outside every floor; ("", -1) for a file
    of another module."""
    parts = rel.split("/")
    if parts[0] not in MODULE_FLOORS or len(parts) < 2:
        return "", -1
    floors, top_allowed = MODULE_FLOORS[parts[0]]
    if len(parts) == 2:
        return parts[0], len(floors) if top_allowed else -1
    return parts[0], floors.index(parts[1]) if parts[1] in floors else -1


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one unit (Tarjan's algorithm)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv: List[str]) -> int:
    src = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "src")
    files = sorted(p for p in src.rglob("*") if p.suffix in (".h", ".cpp", ".inc"))
    problems: List[str] = []
    graph: Dict[str, Set[str]] = {}
    for f in files:
        rel = str(f.relative_to(src))
        module, here = floor_of(rel)
        if module and here < 0:
            floors = ", ".join(MODULE_FLOORS[module][0])
            problems.append(f"{rel}: a file of src/{module} outside its floors ({floors})")
        unit = unit_of(f, src)
        graph.setdefault(unit, set())
        for inc in INCLUDE.findall(f.read_text(errors="replace")):
            target = src / inc
            if not target.exists():
                continue  # a system or third-party header, or one generated into the build tree
            other_module, there = floor_of(inc)
            if module and module == other_module and here >= 0 and there > here:
                names = MODULE_FLOORS[module][0] + ["top"]
                problems.append(f"{rel}: includes {inc}, a floor above ({names[there]} over {names[here]})")
            other = unit_of(target, src)
            if other != unit:
                graph[unit].add(other)
    for component in cycles(graph):
        if set(component) not in SHARED_PRIVATE_HEADERS:
            problems.append("a cycle of units: " + " -> ".join(component))
    for p in problems:
        print(p)
    if problems:
        print(f"check_include_floors: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_include_floors: {len(files)} files, {len(graph)} units: floors kept, no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
