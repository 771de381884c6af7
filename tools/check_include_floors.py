#!/usr/bin/env python3
"""Checks the include graph of src/: the floors of src/rules and src/env and the absence of unit cycles.

src/rules is built in floors, each a folder, each building only on the ones below it:

    core      the rule model (catalogue, match kinds' registry, what a match is)
    analyses  what is computed from an analysed Python file (device values, their flow, blocks)
    rewrites  the edits of the rewrite kinds
    kinds     one unit per match kind (its params, needles, matcher and index) and their list
    safety    which automatic rewrites stay safe where they are
    sources   one scanner per kind of source file (Python, shell, CUDA, dependency lists, configs)

src/env is built in the folders of a pipeline, the verb's command.h and command.cpp above them all:

    readers   shell words, Dockerfile lines, the assignments of a script, .env file or Dockerfile
    model     the knowledge base of data/env, rules across variables, findings that name a rule
    analysis  the checks, translation, doctor
    report    explain, templates, the pages of rules across variables

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

FLOORS = ["core", "analyses", "rewrites", "kinds", "safety", "sources"]
# Modules whose folders are floors, each with the files at its top level above every floor.
MODULE_FLOORS = {"env": ["readers", "model", "analysis", "report"]}
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


def floor_of(rel: str) -> int:
    """The floor of a src-relative path under rules/, or -1 for a file outside any floor."""
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] == "rules" and parts[1] in FLOORS:
        return FLOORS.index(parts[1])
    return -1


def module_floor_of(rel: str) -> Tuple[str, int]:
    """(module, floor) of a src-relative path in a module of MODULE_FLOORS, the top level being the
    floor above its last; ("", -1) for a file of another module."""
    parts = rel.split("/")
    floors = MODULE_FLOORS.get(parts[0])
    if floors is None or len(parts) < 2:
        return "", -1
    if len(parts) == 2:
        return parts[0], len(floors)
    return parts[0], floors.index(parts[1]) if parts[1] in floors else -1


def main(argv: List[str]) -> int:
    src = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "src")
    files = sorted(p for p in src.rglob("*") if p.suffix in (".h", ".cpp", ".inc"))
    problems: List[str] = []
    graph: Dict[str, Set[str]] = {}
    for f in files:
        rel = str(f.relative_to(src))
        here = floor_of(rel)
        if rel.startswith("rules/") and rel.count("/") >= 1 and here < 0:
            problems.append(f"{rel}: a file of src/rules outside its floors ({', '.join(FLOORS)})")
        unit = unit_of(f, src)
        graph.setdefault(unit, set())
        for inc in INCLUDE.findall(f.read_text(errors="replace")):
            target = src / inc
            if not target.exists():
                continue  # a system or third-party header, or one generated into the build tree
            there = floor_of(inc)
            if here >= 0 and there > here:
                problems.append(f"{rel}: includes {inc}, a floor above ({FLOORS[there]} over {FLOORS[here]})")
            if here >= 0 and inc.startswith("rules/") and there < 0:
                problems.append(f"{rel}: includes {inc}, outside the floors")
            module, level = module_floor_of(rel)
            other_module, other_level = module_floor_of(inc)
            if module and module == other_module and level >= 0 and other_level > level:
                names = MODULE_FLOORS[module] + ["top"]
                problems.append(f"{rel}: includes {inc}, a floor above ({names[other_level]} over {names[level]})")
            other = unit_of(target, src)
            if other != unit:
                graph[unit].add(other)
    # Cycles: Tarjan's strongly connected components over the unit graph.
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    counter = [0]

    def strong(v: str) -> None:
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1 and set(component) not in SHARED_PRIVATE_HEADERS:
                    problems.append("a cycle of units: " + " -> ".join(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    for p in problems:
        print(p)
    if problems:
        print(f"check_include_floors: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_include_floors: {len(files)} files, {len(graph)} units: floors kept, no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
