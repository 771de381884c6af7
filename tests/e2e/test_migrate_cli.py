"""End-to-end tests of `banjia migrate` on the embedded example and on small trees.

The oracle is Python itself: every rewritten file must compile (py_compile), token streams of the
original and the migrated file may differ only in the expected ways (tokenize), comments and
docstrings are identical, every other file is byte-identical with its mode kept.
"""
import io
import json
import os
import pathlib
import py_compile
import stat
import subprocess
import tokenize

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "cifar_ddp"

# Token-level rewrites migrate may make (old token text -> allowed new token text).
ALLOWED = {
    "cuda": {"npu"}, "is_cuda": {"is_npu"}, "is_nccl_available": {"is_hccl_available"},
}
# Imports of CUDA-only libraries redirected to a shim module written beside the file (attention.py):
# the module path after `from`/`import` (as name tokens joined by '.') -> the shim.
REDIRECTED = {"flash_attn": "flash_attn_npu", "xformers.ops": "xformers_npu"}


def redirected(toks):
    """`toks` with each redirected module path after `from`/`import` replaced by its shim."""
    out = []
    i = 0
    while i < len(toks):
        out.append(toks[i])
        if toks[i] in ((tokenize.NAME, "from"), (tokenize.NAME, "import")):
            j = i + 1
            while j + 2 < len(toks) and toks[j + 1] == (tokenize.OP, ".") and toks[j + 2][0] == tokenize.NAME:
                j += 2
            path = "".join(s for _, s in toks[i + 1:j + 1])
            if path in REDIRECTED:
                out.append((tokenize.NAME, REDIRECTED[path]))
                i = j + 1
                continue
        i += 1
    return out


def migrate(run, tmp_path, *extra):
    out = tmp_path / "out"
    r = run("migrate", str(EXAMPLE), "-o", str(out), "--report", str(tmp_path / "changes.json"), *extra)
    assert r.returncode == 0, r.stderr
    return out, r


def tokens(path):
    with open(path, "rb") as f:
        return [(t.type, t.string) for t in tokenize.tokenize(f.readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)]


def test_migrated_tree_compiles_and_other_files_are_identical(run, tmp_path):
    out, _ = migrate(run, tmp_path)
    for src in EXAMPLE.rglob("*"):
        if src.is_dir():
            continue
        dst = out / src.relative_to(EXAMPLE)
        assert dst.exists(), dst
        assert stat.S_IMODE(src.stat().st_mode) == stat.S_IMODE(dst.stat().st_mode), dst
        if src.suffix == ".py":
            py_compile.compile(str(dst), doraise=True, cfile=str(tmp_path / "x.pyc"))
        elif src.suffix != ".sh":
            assert src.read_bytes() == dst.read_bytes(), dst


def test_only_expected_tokens_change(run, tmp_path):
    out, _ = migrate(run, tmp_path)
    changed_files = 0
    for src in EXAMPLE.rglob("*.py"):
        a, b = redirected(tokens(src)), tokens(out / src.relative_to(EXAMPLE))
        # Drop the inserted `import torch_npu` from b.
        cleaned = []
        i = 0
        while i < len(b):
            if b[i] == (tokenize.NAME, "import") and i + 1 < len(b) and b[i + 1] == (tokenize.NAME, "torch_npu"):
                i += 2
                continue
            cleaned.append(b[i])
            i += 1
        if len(cleaned) != len(b):
            changed_files += 1
        assert len(a) == len(cleaned), src
        for (ta, sa), (tb, sb) in zip(a, cleaned):
            assert ta == tb
            if sa == sb:
                continue
            if ta == tokenize.NAME:
                assert sb in ALLOWED.get(sa, set()), (src, sa, sb)
            elif ta == tokenize.STRING:
                # device strings, backends and env names only
                assert sa.replace("cuda", "npu") == sb or sa.replace("nccl", "hccl") == sb or \
                    "VISIBLE_DEVICES" in sa or "LAUNCH_BLOCKING" in sa, (src, sa, sb)
            elif ta == tokenize.COMMENT:
                pytest.fail(f"comment changed in {src}: {sa!r} -> {sb!r}")
            else:
                pytest.fail(f"unexpected change in {src}: {sa!r} -> {sb!r}")
    assert changed_files >= 3


def test_import_torch_npu_inserted_once_per_changed_file(run, tmp_path):
    out, _ = migrate(run, tmp_path)
    for src in EXAMPLE.rglob("*.py"):
        text = (out / src.relative_to(EXAMPLE)).read_text()
        assert text.count("import torch_npu") <= 1
        # attention.py only has its imports redirected to shims, which import torch_npu themselves
        if text != src.read_text() and src.name != "attention.py":
            assert text.count("import torch_npu\n") == 1, src
        if src.name == "attention.py":
            assert "torch_npu" not in text and "flash_attn_npu" in text


def test_second_migration_changes_nothing(run, tmp_path):
    out, _ = migrate(run, tmp_path)
    r = run("migrate", str(out), "--check")
    assert r.returncode == 0, r.stdout + r.stderr


def test_check_fails_on_cuda_code(run):
    r = run("migrate", str(EXAMPLE), "--check")
    assert r.returncode == 1


def test_report_lists_changes_and_manual_items(run, tmp_path):
    migrate(run, tmp_path)
    doc = json.loads((tmp_path / "changes.json").read_text())
    assert doc["summary"]["edits"] == len(doc["changes"]) > 0
    rules = {c["rule"] for c in doc["changes"]}
    assert {"tensor-cuda-call", "device-string", "nccl-backend", "cuda-amp", "import-torch-npu"} <= rules
    assert any(m["fix"] == "unsupported" for m in doc["manual"])
    for c in doc["changes"]:
        assert c["file"] and c["line"] >= 1 and c["fix"] == "automatic"


def test_csv_report(run, tmp_path):
    out = tmp_path / "o"
    r = run("migrate", str(EXAMPLE), "-o", str(out), "--report", str(tmp_path / "c.csv"))
    assert r.returncode == 0
    import csv
    rows = list(csv.DictReader(open(tmp_path / "c.csv")))
    assert rows and set(rows[0]) == {"file", "line", "column", "rule", "before", "after", "fix"}


def test_diff_output_applies_with_patch(run, tmp_path):
    work = tmp_path / "w"
    subprocess.run(["cp", "-r", str(EXAMPLE), str(work)], check=True)
    r = run("migrate", str(EXAMPLE), "--dry-run", "--diff")
    assert r.returncode == 0 and r.stdout.startswith("--- a/")
    p = subprocess.run(["patch", "-p1", "-d", str(work)], input=r.stdout, text=True, capture_output=True)
    assert p.returncode == 0, p.stdout + p.stderr
    out = tmp_path / "o"
    assert run("migrate", str(EXAMPLE), "-o", str(out)).returncode == 0
    for f in EXAMPLE.rglob("*.py"):
        assert (work / f.relative_to(EXAMPLE)).read_bytes() == (out / f.relative_to(EXAMPLE)).read_bytes()


def test_dry_run_writes_nothing(run, tmp_path):
    out = tmp_path / "o"
    r = run("migrate", str(EXAMPLE), "-o", str(out), "--dry-run")
    assert r.returncode == 0
    assert not out.exists()


def test_refusals(run, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("x = y.cuda()\n")
    r = run("migrate", str(src), "-o", str(src / "inside"))
    assert r.returncode == 2 and "inside" in r.stderr
    out = tmp_path / "full"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = run("migrate", str(src), "-o", str(out))
    assert r.returncode == 2 and "not empty" in r.stderr
    assert (out / "keep.txt").read_text() == "mine"
    r = run("migrate", str(src))
    assert r.returncode == 2


def test_in_place_keeps_backups_and_is_atomic(run, tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "a.py").write_text("import torch\nx = y.cuda()\n")
    (src / "b.py").write_text("print('no cuda code here')\n")
    r = run("migrate", str(src), "--in-place")
    assert r.returncode == 0, r.stderr
    assert (src / "a.py").read_text() == "import torch\nimport torch_npu\nx = y.npu()\n"
    assert (src / "a.py.orig").read_text() == "import torch\nx = y.cuda()\n"
    assert not (src / "b.py.orig").exists()
    leftovers = [p.name for p in src.iterdir() if "banjia" in p.name]
    assert leftovers == []


def test_in_place_refuses_to_overwrite_an_existing_backup(run, tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "a.py").write_text("x = y.cuda()\n")
    (src / "a.py.orig").write_text("the real original")
    r = run("migrate", str(src), "--in-place")
    assert r.returncode == 2 and "a.py.orig" in r.stderr
    assert (src / "a.py.orig").read_text() == "the real original"
    assert (src / "a.py").read_text() == "x = y.cuda()\n"


def test_permission_denied_output_names_the_file(run, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    src = tmp_path / "p"
    src.mkdir()
    (src / "a.py").write_text("x = y.cuda()\n")
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    r = run("migrate", str(src), "-o", str(out), "--force")
    assert r.returncode == 2


def test_syntax_error_file_is_copied_unchanged(run, tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "bad.py").write_text("x = y.cuda(\n")
    out = tmp_path / "o"
    r = run("migrate", str(src), "-o", str(out))
    # Copied, but not migrated: the CUDA code in it is still there, so the run does not pass.
    assert r.returncode == 2
    assert (out / "bad.py").read_text() == "x = y.cuda(\n"
    assert "bad.py" in r.stdout
    assert r.stderr.splitlines() == [
        "banjia: bad.py: syntax error at line 1, column 11: '(' was never closed; copied unchanged"]


def test_shell_script_env_names_translated(run, tmp_path):
    out, _ = migrate(run, tmp_path)
    text = (out / "scripts" / "launch.sh").read_text()
    assert "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3" in text and "CUDA_VISIBLE_DEVICES" not in text
    assert "PYTORCH_NPU_ALLOC_CONF" in text


def test_target_torch_npu_drops_allocator_options_newer_than_the_target(run, tmp_path):
    # per_process_memory_fraction needs TorchNPU >= 26.1.0 (docs/sources/env-vars.md, "2. Allocator
    # options"); expandable_segments is older.
    src = tmp_path / "p"
    src.mkdir()
    (src / "run.sh").write_text(
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,per_process_memory_fraction:0.9\n")
    old = tmp_path / "old"
    r = run("migrate", str(src), "-o", str(old), "--target-torch-npu", "7.3.0")
    assert r.returncode == 0, r.stderr
    assert (old / "run.sh").read_text() == "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\n"
    assert "26.1.0" in r.stdout
    new = tmp_path / "new"
    assert run("migrate", str(src), "-o", str(new)).returncode == 0
    assert (new / "run.sh").read_text() == \
        "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,per_process_memory_fraction:0.9\n"
    bad = run("migrate", str(src), "-o", str(tmp_path / "x"), "--target-torch-npu", "latest")
    assert bad.returncode == 2 and "--target-torch-npu" in bad.stderr


def test_unwritable_output_path_names_the_file_and_exits_2(run, tmp_path):
    # Works as root too: a regular file stands where migrate must create a directory.
    src = tmp_path / "p"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "a.py").write_text("x = y.cuda()\n")
    out = tmp_path / "o"
    out.mkdir()
    (out / "pkg").write_text("in the way")
    r = run("migrate", str(src), "-o", str(out), "--force")
    assert r.returncode == 2
    assert "pkg" in r.stderr
    assert (out / "pkg").read_text() == "in the way"
