"""The "harmful automatic edits" oracle of bench/modern_corpus.py. It reads the original and the
migrated tree (what `banjia migrate -o` wrote), never banjia's report: every difference between the
two is an automatic edit, found with difflib line by line and located with `ast` in the original.
An edit is harmful when:

(a) capability: it turned `torch.cuda.get_device_capability()` into a call whose result is then
    compared, unpacked or indexed, or `get_device_properties(...)` into one whose `.major`, `.minor`,
    `.multi_processor_count` or `.uuid` is read. torch_npu's get_device_capability returns None
    (unless TORCH_NPU_DEVICE_CAPABILITY is set) and its device properties have no major/minor
    (Ascend/pytorch torch_npu/npu/utils.py; data/rules/torch_cuda.toml says the same);
(b) nvidia-test: a comparison with "cuda" that means "this is an NVIDIA GPU" was rewritten: its value
    goes to a name like is_nvidia / is_cuda_platform / use_tf32, or a function of such a name returns
    it, or it guards TF32, cuDNN, Hopper/TMA, fp8 or get_device_capability code;
(c) npu-aware: code that already handles the NPU (a branch on "npu", is_torch_npu_available(),
    torch.npu.is_available(), an NPU enum member) had another branch of the same dispatch rewritten;
(d) unparsable: the migrated file no longer parses with ast.parse.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import pathlib
import re
from typing import Iterator, Optional, Sequence

from modern_sites import _Imports, iter_files

NVIDIA_NAME = re.compile(r"(?i)nvidia|cuda_platform|hopper|ampere|blackwell|sm_?[789]\d|(?<![a-z])tma|fp8|float8|tf32|cudnn")
NVIDIA_GUARDED = re.compile(r"(?i)tf32|cudnn|get_device_capability|get_device_properties|hopper|(?<![a-z])tma(?![a-z])|"
                            r"fp8|float8|sm_?90|sm_?100|h100|h200|wgmma|nvidia")
NPU_WORD = re.compile(r"(?<![A-Za-z])(npu|NPU|Npu)(?![A-Za-z])|ascend|Ascend")
CUDA_WORD = re.compile(r"(?<![A-Za-z])cuda(?![A-Za-z])")
CUDA_LITERAL = re.compile(r"""^(cuda|cuda:\d+)$""")
UNSUPPORTED_PROPERTY = {"major", "minor", "multi_processor_count", "uuid"}


@dataclasses.dataclass(frozen=True, order=True)
class HarmfulEdit:
    file: str
    line: int  # in the original file
    check: str  # capability | nvidia-test | npu-aware | unparsable
    reason: str
    before: str
    after: str


def split_lines(text: str) -> list[str]:
    r"""Lines as the ast module numbers them, without their ends: only \n, \r\n and \r end a line
    (str.splitlines also splits at form feeds and other separators, which would shift later lines)."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


class Source:
    """A file's text, with the source segment of a node (ast.get_source_segment splits the whole
    text on every call, which made this oracle quadratic on large files)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self._encoded: dict[int, bytes] = {}

    def _line(self, number: int) -> bytes:
        if number not in self._encoded:
            self._encoded[number] = self.lines[number - 1].encode() if 0 < number <= len(self.lines) else b""
        return self._encoded[number]

    def segment(self, node: ast.AST) -> str:
        """The node's text (columns are UTF-8 byte offsets, as in ast)."""
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            return ""
        if first == last:
            return self._line(first)[start:end].decode(errors="replace")
        parts = [self._line(first)[start:]] + [self._line(i) for i in range(first + 1, last)] + [self._line(last)[:end]]
        return b"\n".join(parts).decode(errors="replace")


@dataclasses.dataclass
class _FileDiff:
    """Which original lines changed, and where each original line went in the migrated file."""
    original: list[str]
    migrated: list[str]
    changed: set[int]
    to_migrated: dict[int, list[int]]

    @classmethod
    def of(cls, original: list[str], migrated: list[str]) -> "_FileDiff":
        changed: set[int] = set()
        to_migrated: dict[int, list[int]] = {}
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, original, migrated, autojunk=False).get_opcodes():
            if tag == "insert":
                continue
            if tag != "equal":
                changed.update(range(i1 + 1, i2 + 1))
            for i in range(i1, i2):
                if i2 - i1 == j2 - j1:
                    to_migrated[i + 1] = [j1 + (i - i1) + 1]
                else:
                    to_migrated[i + 1] = list(range(j1 + 1, j2 + 1))
        return cls(original, migrated, changed, to_migrated)

    def migrated_text(self, first: int, last: int) -> str:
        lines = sorted({m for i in range(first, last + 1) for m in self.to_migrated.get(i, [])})
        return "\n".join(self.migrated[m - 1] for m in lines)

    def rewritten(self, source: Source, node: ast.AST) -> bool:
        """Whether an edit changed this node's own text (not just another part of its lines)."""
        first, last = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        if not self.changed & set(range(first, last + 1)):
            return False
        segment = source.segment(node)
        return not segment or " ".join(segment.split()) not in " ".join(self.migrated_text(first, last).split())

    def line_after(self, line: int) -> str:
        return self.migrated_text(line, line).strip()


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _callee_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _is_cuda_compare(node: ast.AST) -> bool:
    """`x == "cuda"`, `"cuda" in x`, `x.startswith("cuda")` and the like."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        return any(isinstance(o, ast.Constant) and isinstance(o.value, str) and CUDA_LITERAL.match(o.value)
                   for o in operands)
    if isinstance(node, ast.Call) and _callee_name(node) in ("startswith", "endswith"):
        return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("cuda")
                   for a in node.args)
    return False


def _uses_of_result(call: ast.Call, parents: dict[int, ast.AST], scope: ast.AST) -> Iterator[str]:
    """How the result of `call` is consumed, directly or through one name it is assigned to."""
    def judge(node: ast.AST, via: str) -> Iterator[str]:
        parent = parents.get(id(node))
        if isinstance(parent, ast.Compare):
            yield f"result{via} compared"
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            yield f"result{via} indexed"
        elif isinstance(parent, ast.Attribute) and parent.attr in UNSUPPORTED_PROPERTY:
            yield f".{parent.attr}{via} read"
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            for t in targets:
                if isinstance(t, (ast.Tuple, ast.List)):
                    yield f"result{via} unpacked"
                elif isinstance(t, ast.Name) and not via:
                    for use in ast.walk(scope):
                        if isinstance(use, ast.Name) and use.id == t.id and isinstance(use.ctx, ast.Load):
                            yield from judge(use, f" (through `{t.id}`)")
    yield from judge(call, "")


def _enclosing_scope(node: ast.AST, parents: dict[int, ast.AST], tree: ast.Module) -> ast.AST:
    current: Optional[ast.AST] = node
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
        current = parents.get(id(current))
    return current or tree


def _capability(rel: str, diff: _FileDiff, original: ast.Module, migrated: ast.Module) -> Iterator[HarmfulEdit]:
    parents = _parents(migrated)
    orig_imports, mig_imports = _Imports(original), _Imports(migrated)
    from_migrated = {m: o for o, ms in diff.to_migrated.items() for m in ms}
    for node in ast.walk(migrated):
        if not (isinstance(node, ast.Call) and _callee_name(node) in ("get_device_capability", "get_device_properties")):
            continue
        line = from_migrated.get(node.lineno)
        if line is None:
            continue
        was_cuda = (orig_imports.qualify(node.func) or "").startswith("torch.cuda.")
        is_cuda = (mig_imports.qualify(node.func) or "").startswith("torch.cuda.")
        edited = line in diff.changed and CUDA_WORD.search(diff.original[line - 1]) is not None
        if is_cuda or not (edited or was_cuda):
            continue
        for use in sorted(set(_uses_of_result(node, parents, _enclosing_scope(node, parents, migrated)))):
            yield HarmfulEdit(rel, line, "capability", f"`{_callee_name(node)}` on the NPU: {use}",
                              diff.original[line - 1].strip(), diff.line_after(line))


def _nvidia_tests(rel: str, source: Source, diff: _FileDiff, tree: ast.Module) -> Iterator[HarmfulEdit]:
    parents = _parents(tree)
    flipped_names: dict[str, int] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, (ast.Compare, ast.Call)) and _is_cuda_compare(node) and diff.rewritten(source, node)):
            continue
        holder: ast.AST = node
        while isinstance(parents.get(id(holder)), (ast.BoolOp, ast.UnaryOp)):
            holder = parents[id(holder)]
        parent = parents.get(id(holder))
        reasons = []
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            for t in targets:
                name = ast.unparse(t)
                flipped_names[name.rsplit(".", 1)[-1]] = node.lineno
                if NVIDIA_NAME.search(name):
                    reasons.append(f"its result is `{name}`")
        if isinstance(parent, ast.Return):
            func = _enclosing_scope(parent, parents, tree)
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and NVIDIA_NAME.search(func.name):
                reasons.append(f"`{func.name}()` returns it")
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and parent.test is holder:
            guarded = _guarded_text(source, parent)
            hit = NVIDIA_GUARDED.search(guarded)
            if hit:
                reasons.append(f"it guards `{hit.group(0)}` code")
        for reason in reasons:
            yield HarmfulEdit(rel, node.lineno, "nvidia-test", f"`{source.segment(node)}` rewritten: {reason}",
                              diff.original[node.lineno - 1].strip(), diff.line_after(node.lineno))
    for node in ast.walk(tree):  # a flipped name that later guards NVIDIA-only code
        if isinstance(node, ast.If):
            names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node.test)
                     if isinstance(n, (ast.Name, ast.Attribute))}
            hit = NVIDIA_GUARDED.search(_guarded_text(source, node))
            for name in sorted(names & flipped_names.keys()):
                if hit:
                    line = flipped_names[name]
                    yield HarmfulEdit(rel, line, "nvidia-test",
                                      f"`{name}` (a rewritten \"cuda\" test) guards `{hit.group(0)}` code at line {node.lineno}",
                                      diff.original[line - 1].strip(), diff.line_after(line))


def _guarded_text(source: Source, node: ast.If | ast.IfExp | ast.While) -> str:
    parts: Sequence[ast.AST] = [node.test, node.body] if isinstance(node, ast.IfExp) else [node.test, *node.body]
    return "\n".join(source.segment(p) for p in parts)


def _branches(node: ast.If) -> tuple[list[tuple[Optional[ast.expr], list[ast.stmt]]], list[ast.If]]:
    """An if/elif/else chain as (test, body) pairs (the else branch has no test), and its elif nodes."""
    chain: list[tuple[Optional[ast.expr], list[ast.stmt]]] = []
    elifs: list[ast.If] = []
    current = node
    while True:
        chain.append((current.test, current.body))
        if len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
            current = current.orelse[0]
            elifs.append(current)
        else:
            if current.orelse:
                chain.append((None, current.orelse))
            return chain, elifs


def _npu_aware(rel: str, source: Source, diff: _FileDiff, tree: ast.Module) -> Iterator[HarmfulEdit]:
    def mentions_npu(node: Optional[ast.AST]) -> bool:
        return node is not None and NPU_WORD.search(source.segment(node) or "") is not None

    def report(node: ast.AST, what: str) -> Iterator[HarmfulEdit]:
        first, last = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        for line in sorted(diff.changed & set(range(first, last + 1))):
            yield HarmfulEdit(rel, line, "npu-aware", what, diff.original[line - 1].strip(), diff.line_after(line))

    seen_elif: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and id(node) not in seen_elif:
            chain, elifs = _branches(node)
            seen_elif.update(id(e) for e in elifs)
            npu_line = next((t.lineno for t, _ in chain if t is not None and mentions_npu(t)), None)
            if npu_line is None:
                continue
            for test, body in chain:
                if test is not None and mentions_npu(test):
                    continue
                for part in ([test] if test is not None else []) + body:
                    yield from report(part, f"a non-NPU branch of the dispatch on the NPU at line {npu_line}")
        elif isinstance(node, ast.IfExp) and mentions_npu(node.test):
            for branch in (node.body, node.orelse):
                if not mentions_npu(branch) and diff.rewritten(source, branch):
                    yield HarmfulEdit(rel, node.lineno, "npu-aware", "the non-NPU arm of a conditional on the NPU",
                                      diff.original[node.lineno - 1].strip(), diff.line_after(node.lineno))
        elif isinstance(node, ast.Dict):
            keys = [(k, k.value) for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if any(value == "npu" for _, value in keys):
                for k, value in keys:
                    if CUDA_LITERAL.match(value) and diff.rewritten(source, k):
                        yield HarmfulEdit(rel, k.lineno, "npu-aware", "the \"cuda\" key of a table that has an \"npu\" key",
                                          diff.original[k.lineno - 1].strip(), diff.line_after(k.lineno))
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.If, ast.For, ast.While, ast.With, ast.Try)):
            for block in (getattr(node, "body", []), getattr(node, "orelse", [])):
                ifs = [s for s in block if isinstance(s, ast.If)]
                npu_if = next((s for s in ifs if mentions_npu(s.test)), None)
                if npu_if is None:
                    continue
                for s in ifs:  # sequential `if cuda...: return` / `if npu...: return` probes
                    if s is not npu_if and not mentions_npu(s.test) and CUDA_WORD.search(source.segment(s.test) or ""):
                        yield from report(s, f"a CUDA probe next to the NPU probe at line {npu_if.lineno}")


def file_harm(rel: str, original_bytes: bytes, migrated_bytes: bytes) -> list[HarmfulEdit]:
    try:
        source = Source(original_bytes.decode("utf-8"))
        original = ast.parse(original_bytes)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return []  # banjia copies a file it cannot parse unchanged; nothing to judge
    mig_text = migrated_bytes.decode("utf-8", errors="replace")
    diff = _FileDiff.of(source.lines, split_lines(mig_text))
    try:
        migrated = ast.parse(migrated_bytes)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None) or 1
        return [HarmfulEdit(rel, line, "unparsable", f"the migrated file does not parse: {e.__class__.__name__}: {e}",
                            "", diff.migrated[line - 1].strip() if line <= len(diff.migrated) else "")]
    found = set(_capability(rel, diff, original, migrated))
    found.update(_nvidia_tests(rel, source, diff, original))
    found.update(_npu_aware(rel, source, diff, original))
    return sorted(found)


def tree_harm(original_root: pathlib.Path, migrated_root: pathlib.Path) -> tuple[list[HarmfulEdit], list[str]]:
    """Every harmful edit of the migrated tree, and the .py files that differ from the original."""
    harmful: list[HarmfulEdit] = []
    changed: list[str] = []
    for path in iter_files(original_root):
        if path.suffix != ".py":
            continue
        rel = path.relative_to(original_root).as_posix()
        other = migrated_root / rel
        before = path.read_bytes()
        after = other.read_bytes() if other.is_file() else b""
        if before == after:
            continue
        changed.append(rel)
        harmful += file_harm(rel, before, after)
    return harmful, changed
