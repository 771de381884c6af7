"""Runs the malformed-input corpus (tests/malformed/manifest.toml) through the CLI.

Each case names a verb's command line, an input (a file under tests/malformed/ or one generated here
at run time: deep nesting, symlink loops, '..' paths, huge files), the exact exit code, and a regex
for the single stderr line (naming the file) or for the per-item status in the report on stdout.
Whatever the input, banjia must never crash (signal / exit >= 128 / sanitizer report) or hang.
"""
import os
import pathlib
import re
import subprocess
import tomllib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE.parent / "malformed"
MANIFEST = tomllib.loads((CORPUS / "manifest.toml").read_text())["case"]
TIMEOUT_S = 60  # per case; a hang fails the case instead of the whole suite


# Generated inputs: too large for git, or things git cannot hold (symlink loops).
def gen_deep_nesting_py(d):
    p = d / "deep.py"
    p.write_text("import torch\nx = " + "(" * 200_000 + "torch.cuda.is_available()" + ")" * 200_000 + "\n")
    return p


def gen_deep_brackets_unclosed_py(d):
    p = d / "unclosed.py"
    p.write_text("import torch\nx = " + "[{(" * 100_000 + "\n")
    return p


def gen_deep_nesting_json(d):
    p = d / "deep.json"
    p.write_text('{"format": "banjia.bench", "version": 1, "timing": {"unit": "ms", "times": '
                 + "[" * 100_000 + "1" + "]" * 100_000 + "}}")
    return p


def gen_long_line_py(d):  # one 8 MiB line
    p = d / "long.py"
    p.write_text("import torch\nx = torch.tensor([" + "1," * 4_000_000 + "]).cuda()\n")
    return p


def gen_many_rows_csv(d):  # 200 000 rows with an out-of-range value in every other one
    p = d / "many.csv"
    p.write_text("iteration,ms\n" + "".join(f"{i},{'1e400' if i % 2 else '2.5'}\n" for i in range(200_000)))
    return p


def gen_symlink_loop_dir(d):
    root = d / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "train.py").write_text("import torch\nx = torch.randn(2).cuda()\n")
    os.symlink(root, root / "pkg" / "loop")          # directory cycle back to the root
    os.symlink(root / "a", root / "b")                # b -> a -> b
    os.symlink(root / "b", root / "a")
    os.symlink(root / "missing.py", root / "dangling.py")
    return root


def gen_symlink_loop_file(d):
    os.symlink(d / "b.sh", d / "a.sh")
    os.symlink(d / "a.sh", d / "b.sh")
    return d / "a.sh"


def gen_dotdot_out_inside_source(d):  # OUT spelled with '..' still lies inside SOURCE
    src = d / "src"
    (src / "sub").mkdir(parents=True)
    (src / "train.py").write_text("import torch\nx = torch.randn(2).cuda()\n")
    return src


def gen_dotdot_missing(d):
    return d / "nowhere" / ".." / ".." / "missing_dir_x" / "train.py"


GENERATORS = {name[4:]: fn for name, fn in globals().items() if name.startswith("gen_")}


def materialise(case, tmp_path):
    if "generate" in case:
        return GENERATORS[case["generate"]](tmp_path)
    return CORPUS / case["input"]


def expand(text, values):
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


@pytest.mark.parametrize("case", MANIFEST, ids=[c["id"] for c in MANIFEST])
def test_malformed_input(case, banjia_bin, tmp_path):
    path = materialise(case, tmp_path)
    args_values = {"input": str(path), "tmp": str(tmp_path)}
    args = [expand(a, args_values) for a in case["args"]]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", NO_COLOR="1")
    try:
        r = subprocess.run([banjia_bin, *args], capture_output=True, timeout=TIMEOUT_S, env=env,
                           cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: no exit within {TIMEOUT_S}s")
    stderr = r.stderr.decode("utf-8", "replace")
    stdout = r.stdout.decode("utf-8", "replace")
    assert r.returncode >= 0 and r.returncode < 128, f"crashed (rc {r.returncode}): {stderr[-2000:]}"
    assert "Sanitizer" not in stderr and "runtime error:" not in stderr, stderr[-2000:]
    assert r.returncode == case["exit"], f"rc {r.returncode}\nstderr: {stderr}\nstdout: {stdout[:2000]}"
    # Patterns may name the input: {input} is its path (regex-escaped).
    regex_values = {k: re.escape(v) for k, v in args_values.items()}
    if "stderr" in case:
        lines = stderr.strip().splitlines()
        assert len(lines) == 1, f"expected one stderr line, got: {stderr}"
        assert re.search(expand(case["stderr"], regex_values), lines[0]), lines[0]
    if "stdout" in case:
        assert re.search(expand(case["stdout"], regex_values), stdout, re.S), stdout[:4000]
    for rel in case.get("absent", []):  # nothing half-written
        assert not (tmp_path / rel).exists(), f"{rel} was written"


def test_every_corpus_file_has_a_case():
    used = {c["input"] for c in MANIFEST if "input" in c}
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file() and p.name != "manifest.toml"}
    assert files <= used, f"corpus files without a manifest case: {sorted(files - used)}"
    assert {c["generate"] for c in MANIFEST if "generate" in c} <= set(GENERATORS)


def test_migrate_single_file_to_bare_relative_name(run, tmp_path):
    """Regression (found with this corpus): `migrate f.py -o out.py` with no directory part failed
    with 'Invalid argument' (create_directories("")) and wrote nothing."""
    src = tmp_path / "f.py"
    src.write_text("import torch\nx = torch.randn(2).cuda()\n")
    r = run("migrate", "f.py", "-o", "out.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.py").read_text() == "import torch\nimport torch_npu\nx = torch.randn(2).npu()\n"
