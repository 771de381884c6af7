"""Differential test of banjia's Python tokenizer against CPython's own `tokenize` module.

For every .py file of the standard library and of the torch package of the Python 3.11 that runs
this test (the repository's .venv), plus a set of hand-written tricky snippets, the token stream banjia
produces in py311 mode (without its Whitespace trivia) must equal that interpreter's `tokenize.tokenize`:
same type, string, start and end for every token. Files CPython itself cannot tokenize are skipped
(listed on failure only). The same files must also tokenize losslessly (concatenated tokens == source)
in both modes. Documented deliberate differences: docs/design/python-frontend.md.
"""
import importlib.util
import io
import json
import os
import pathlib
import subprocess
import sys
import sysconfig
import tokenize
from multiprocessing import Pool

import pytest

from python_corpora import python_files, stdlib_files

# Tricky inputs CPython's tokenize accepts; each must produce the identical stream.
SNIPPETS = {
    "crlf.py": b"import torch\r\nif x:\r\n    y = 1  # c\r\n\r\n    z = (1,\r\n         2)\r\n",
    "tabs_ff.py": b"if a:\n\tif b:\n\t\tx = 1\n\t        y = 2\n\x0cz = 3\n",
    "continuation.py": b"x = 1 + \\\n    2\nif a and \\\n   b:\n    pass\n",
    "strings.py": (b"a = rb'\\x00' + Rb\"x\" + BR'''y''' + u'z' + F'{a}' + fR\"{b}\" + rf'c'\n"
                   b"b = '''multi\nline''' \"\"\"with \\\"\"\" quote\"\"\"\n"
                   b"c = 'cont\\\ninued'\nd = f\"{x!r:>{w}}\" 'adj'\n"),
    "numbers.py": b"n = [0, 00, 0_0, 1_000, 0x_fF, 0b1_0, 0o7_7, 1., .5, 1.5e-3, 1E+5j, 3j, 1.j, 0777, 1e, 1_]\n",
    "operators.py": b"a @= b ** c // d; e->f; g := h; i...; j <<= 1 >> 2 != 3 <= 4\nk = l[1:2, ...]\n",
    "unicode.py": "größe = 'ü' # ß\nπ = 3.14; 变量 = π\ns = f'{größe}'\n".encode(),
    "no_newline_at_eof.py": b"if x:\n    y = 1",
    "comment_at_eof.py": b"x = 1\n    # trailing comment",
    "blank_tail.py": b"def f():\n    return 1\n\n   ",
    "comment_lines.py": b"if x:\n    a = 1\n# dedented comment\n        # deeper comment\n    b = 2\n",
    "error_chars.py": b"a = $b ? c\nd = `e`\n",
    "unterminated_single.py": b"x = 'abc\ny = rb'q\nz = 1\n",
    "empty.py": b"",
    "only_comment.py": b"# just a comment\n",
    "bom_cookie.py": b"\xef\xbb\xbf# -*- coding: utf-8 -*-\nx = 'bom'\n",
    "latin1.py": b"# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'  # caf\xe9\n",
    "nested_brackets.py": b"x = " + b"(" * 200 + b"1" + b")" * 200 + b"\n",
    "fstring_quotes.py": b"a = f'{x[\"k\"]}' f\"{y!s}\" f'''{z\n}'''\n",
    "decorators.py": b"@torch.jit.script\n@ triton.jit\ndef k(x): return x\nclass A: pass\n",
    "continued_blank.py": b"x = 1 + \\\n2\ny = \\\n\nz = (\n\n  # c\n)\n",
    "continued_string_error.py": b"s = 'abc\\\ndef\nt = 1\n",
    "dedent_at_eof.py": b"class A:\n    def f(self):\n        if x:\n            pass\n",
    "semicolons_ws.py": b"a = 1 ;b=2;\t c = 3 \x0c\n",
    "escaped_quote_errors.py": b"s = 'a\\'b\\' \"x\\\"\nt = 2\n",
}


def corpus_missing(reason):
    # A corpus that is silently absent would make these tests prove nothing: they fail, unless a
    # hand-run says BANJIA_ALLOW_MISSING_CORPUS=1 (the setup's .venv always has both corpora).
    if os.environ.get("BANJIA_ALLOW_MISSING_CORPUS") == "1":
        pytest.skip(reason)
    pytest.fail(reason)


def corpus_dirs():
    """The running interpreter's standard library and torch package (tests/e2e/python_corpora.py says
    which of their files are read)."""
    if sys.version_info[:2] != (3, 11):
        corpus_missing(f"the reference tokenizer must be Python 3.11 (run pytest with the repository's .venv), "
                       f"not {sys.version.split()[0]}")
    stdlib = pathlib.Path(sysconfig.get_paths()["stdlib"])
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        corpus_missing(f"torch is not installed for {sys.executable}; the corpus needs its package")
    return [stdlib, pathlib.Path(spec.submodule_search_locations[0])]


@pytest.fixture(scope="module")
def corpus_files():
    stdlib, torch = corpus_dirs()
    files = []
    for d, found in ((stdlib, stdlib_files(stdlib)), (torch, python_files(torch))):
        assert len(found) > 500, f"{d}: only {len(found)} .py files"
        files += [str(p) for p in found]
    return files


def reference_tokens(path):
    """CPython's tokens for one file: [type, string, sl, sc, el, ec] without ENCODING, or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        toks = list(tokenize.tokenize(io.BytesIO(data).readline))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError) as e:
        return path, None, f"{type(e).__name__}: {e}"
    rows = [[tokenize.tok_name[t.type], t.string, t.start[0], t.start[1], t.end[0], t.end[1]]
            for t in toks if t.type != tokenize.ENCODING]
    return path, rows, None


@pytest.fixture(scope="module")
def tokdump(banjia_bin):
    path = os.environ.get("BANJIA_TOKDUMP") or str(
        pathlib.Path(banjia_bin).resolve().parent.parent / "tests" / "tools" / "banjia_tokdump")
    if not os.path.exists(path):
        pytest.fail(f"banjia_tokdump not found at {path}; build the tests (ninja -C build) or set BANJIA_TOKDUMP")
    return path


@pytest.fixture(scope="module")
def snippet_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tok_snippets")
    paths = []
    for name, data in SNIPPETS.items():
        p = d / name
        p.write_bytes(data)
        paths.append(str(p))
    return paths


def run_tokdump(tokdump, files, mode, *extra):
    """{file: JSON line} from one banjia_tokdump process over all files."""
    proc = subprocess.run([tokdump, "--mode", mode, *extra, "--files-from", "-"], input="\n".join(files),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        # The file name is the first field; parse the (large) rest only in the worker that needs it.
        out[json.loads(line[:line.index(',"', 8)] + "}")["file"]] = line
    assert len(out) == len(files)
    return out


def first_difference(ours, ref):
    for i, (a, b) in enumerate(zip(ours, ref)):
        if a != b:
            return f"token {i}: banjia {a} != tokenize {b}"
    return f"lengths differ: banjia {len(ours)} tokens, tokenize {len(ref)}"


def check_file(job):
    """Runs in a worker: CPython's tokens for one file against banjia's JSON line for it."""
    path, line = job
    path, ref, why = reference_tokens(path)
    if ref is None:
        return "skipped", f"{path}: {why}"
    rec = json.loads(line)
    if "error" in rec:
        return "failed", f"{path}: banjia could not read a file CPython tokenizes: {rec['error']}"
    if not rec["lossless"]:
        return "failed", f"{path}: tokens do not reproduce the source"
    if rec["tokens"] != ref:
        return "failed", f"{path}: {first_difference(rec['tokens'], ref)}"
    return "ok", None


def compare(tokdump, files):
    ours = run_tokdump(tokdump, files, "py311")
    with Pool(min(4, os.cpu_count() or 1)) as pool:
        results = pool.map(check_file, [(f, ours[f]) for f in files], chunksize=16)
    compared = sum(1 for status, _ in results if status != "skipped")
    skipped = [msg for status, msg in results if status == "skipped"]
    mismatches = [msg for status, msg in results if status == "failed"]
    return compared, skipped, mismatches


def test_snippets_match_cpython_tokenize(tokdump, snippet_files):
    compared, skipped, mismatches = compare(tokdump, snippet_files)
    assert not skipped, skipped
    assert compared == len(SNIPPETS)
    if mismatches:
        pytest.fail("\n".join(mismatches), pytrace=False)


def test_corpus_matches_cpython_tokenize(tokdump, corpus_files):
    files = corpus_files
    compared, skipped, mismatches = compare(tokdump, files)
    # Nearly every file of a released stdlib/torch must be tokenizable by CPython and compared.
    assert compared >= 0.95 * len(files), skipped[:20]
    if mismatches:  # pytest.fail: assertion introspection of huge token lists is very slow
        pytest.fail(f"{len(mismatches)} of {compared} files differ:\n" + "\n".join(m[:2000] for m in mismatches[:10]),
                    pytrace=False)


def test_corpus_is_lossless_and_clean_in_py312_mode(tokdump, corpus_files):
    files = corpus_files
    ours = {f: json.loads(line) for f, line in run_tokdump(tokdump, files, "py312", "--no-tokens").items()}
    bad = [f for f, rec in ours.items() if "error" in rec or not rec["lossless"] or rec["tokenize_error"]]
    assert not bad, [(f, ours[f].get("error") or ours[f]["tokenize_error"]) for f in bad[:10]]
