"""`banjia migrate` redirects imports of CUDA-only kernel libraries (flash_attn, xformers, apex) to the
shim modules of data/shims, and writes each shim beside the files that use it
(docs/scan-migrate.md#third-party-kernels-shims).

Expected files are written out here by hand; the shims' bytes are read from data/shims. Nothing here
depends on what the shims compute: the migrated programs are only imported, never run past that.
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHIMS = REPO / "data" / "shims"
TARGETS = ("npu", "accelerator")

# A tree with a script directory (the top, tools/) and packages (models/, models/layers/); module-level
# code only imports, so that importing the migrated modules runs no shim function.
TREE = {
    "train.py": "from flash_attn import flash_attn_func\n\n\ndef attend(q, k, v):\n    return flash_attn_func(q, k, v)\n",
    "models/__init__.py": "",
    "models/attn.py": (
        "from flash_attn.bert_padding import pad_input as pad\n"
        "import xformers.ops as xops\n"
        "\n\n"
        "def attend(q, k, v):\n"
        "    return pad(xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask()), None, 1, 1)\n"),
    "models/layers/__init__.py": "",
    "models/layers/norm.py": "try:\n    from apex.normalization import FusedRMSNorm as Norm\nexcept ImportError:\n    Norm = None\n",
    "tools/bench.py": "def optimizer(params):\n    from apex.optimizers import FusedAdam as Adam\n    return Adam(params, lr=1e-3)\n",
    "README.txt": "flash_attn is imported by train.py\n",
}
MIGRATED = {
    "train.py": "from flash_attn_npu import flash_attn_func\n\n\ndef attend(q, k, v):\n    return flash_attn_func(q, k, v)\n",
    "models/__init__.py": "",
    "models/attn.py": (
        "from .flash_attn_npu import pad_input as pad\n"
        "from . import xformers_npu as xops\n"
        "\n\n"
        "def attend(q, k, v):\n"
        "    return pad(xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask()), None, 1, 1)\n"),
    "models/layers/__init__.py": "",
    "models/layers/norm.py": "try:\n    from .apex_npu import FusedRMSNorm as Norm\nexcept ImportError:\n    Norm = None\n",
    "tools/bench.py": "def optimizer(params):\n    from apex_npu import FusedAdam as Adam\n    return Adam(params, lr=1e-3)\n",
    "README.txt": "flash_attn is imported by train.py\n",
}
# (path, library, rule) of every shim the tree needs, in path order
SHIMS_WRITTEN = [
    ("flash_attn_npu.py", "flash_attn", "flash-attn-shim"),
    ("models/flash_attn_npu.py", "flash_attn", "flash-attn-shim"),
    ("models/layers/apex_npu.py", "apex", "apex-shim"),
    ("models/xformers_npu.py", "xformers", "xformers-shim"),
    ("tools/apex_npu.py", "apex", "apex-shim"),
]


def write_tree(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def files_of(root: pathlib.Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def shim_bytes(name: str) -> bytes:
    return (SHIMS / pathlib.Path(name).name).read_bytes()


def expected_tree(files: dict[str, str], shims: list[tuple[str, str, str]]) -> dict[str, bytes]:
    out = {rel: text.encode() for rel, text in files.items()}
    out.update({path: shim_bytes(path) for path, _, _ in shims})
    return dict(sorted(out.items()))


@pytest.mark.parametrize("target", TARGETS)
def test_a_tree_gets_its_imports_redirected_and_a_shim_beside_each_file(run, tmp_path, target):
    src = write_tree(tmp_path / "src", TREE)
    r = run("migrate", src, "-o", tmp_path / "out", "--target", target, "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    # a script's directory imports the shim absolutely, a package relatively; no import torch_npu is
    # added for a redirect alone
    assert files_of(tmp_path / "out") == expected_tree(MIGRATED, SHIMS_WRITTEN)
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(s["file"], s["library"], s["rule"]) for s in report["shims"]] == SHIMS_WRITTEN
    assert report["summary"]["shim_files"] == 5
    assert report["summary"]["edits_by_rule"] == {"apex-shim": 2, "flash-attn-shim": 2, "xformers-shim": 1}
    assert all(c["fix"] == "automatic" for c in report["changes"])
    assert report["manual"] == []
    assert "new files written" in r.stdout and "models/xformers_npu.py  (xformers, xformers-shim)" in r.stdout


def test_the_migrated_modules_import_without_the_libraries_or_banjia(run, tmp_path):
    src = write_tree(tmp_path / "src", TREE)
    assert run("migrate", src, "-o", tmp_path / "out").returncode == 0
    out = tmp_path / "out"
    for path in out.rglob("*.py"):
        imported = {a.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Import) for a in n.names} | \
                   {n.module for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ImportFrom) and n.module}
        assert not any(m.split(".")[0] in ("banjia", "flash_attn", "xformers", "apex") for m in imported), path
    # A script runs with its directory on sys.path; a package's modules are imported through it.
    code = ("import sys\n"
            f"sys.path[:0] = [{str(out)!r}, {str(out / 'tools')!r}]\n"
            "import train, models.attn, models.layers.norm, bench\n"
            "assert models.layers.norm.Norm is not None\n"
            "loaded = {m.split('.')[0] for m in sys.modules}\n"
            "assert not loaded & {'banjia', 'flash_attn', 'xformers', 'apex'}, loaded\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr


def test_names_the_shim_lacks_stay_with_their_findings(run, tmp_path):
    src = write_tree(tmp_path / "src", {
        "attn.py": ("from flash_attn.flash_attn_interface import (\n"
                    "    flash_attn_func,\n"
                    "    _flash_attn_forward,\n"
                    "    flash_attn_varlen_func as varlen,\n"
                    ")\n"
                    "out = _flash_attn_forward(q, kc, vc)\n"),
        "mods.py": "import xformers.ops as xops\nq, k, v = xops.unbind(qkv, dim=2)\nout = xops.memory_efficient_attention(q, k, v)\n",
    })
    r = run("migrate", src, "-o", tmp_path / "out", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert files_of(tmp_path / "out") == {
        "attn.py": (b"from flash_attn_npu import flash_attn_func, flash_attn_varlen_func as varlen\n"
                    b"from flash_attn.flash_attn_interface import (\n"
                    b"    _flash_attn_forward,\n"
                    b")\n"
                    b"out = _flash_attn_forward(q, kc, vc)\n"),
        "flash_attn_npu.py": shim_bytes("flash_attn_npu.py"),
        "mods.py": (src / "mods.py").read_bytes(),
    }
    manual = [(m["file"], m["line"], m["rule"], m["fix"]) for m in json.loads((tmp_path / "r.json").read_text())["manual"]]
    # _flash_attn_forward (import and call) keeps flash-attn; the module import whose use reads
    # xops.unbind is not redirected, says why, and keeps xformers on the import and both uses
    assert manual == [("attn.py", 3, "flash-attn", "manual"), ("attn.py", 6, "flash-attn", "manual"),
                      ("mods.py", 1, "xformers", "unsupported"), ("mods.py", 1, "xformers-shim", "manual"),
                      ("mods.py", 2, "xformers", "unsupported"), ("mods.py", 3, "xformers", "unsupported")]
    why = next(m["message"] for m in json.loads((tmp_path / "r.json").read_text())["manual"] if m["rule"] == "xformers-shim")
    assert why.startswith("xformers.ops.unbind (line 2) is not in xformers_npu")


def test_calls_the_shim_cannot_honour_are_reported_at_the_call(run, tmp_path):
    src = write_tree(tmp_path / "src", {"a.py": (
        "from flash_attn import flash_attn_func\n"
        "o1 = flash_attn_func(q, k, v, alibi_slopes=s, softcap=30.0, deterministic=True)\n"
        "o2 = flash_attn_func(q, k, v, alibi_slopes=None, softcap=0.0, return_attn_probs=False)\n"
        "o3 = flash_attn_func(q, k, v, return_attn_probs=True)\n")})
    r = run("migrate", src, "-o", tmp_path / "out", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "a.py").read_text().startswith("from flash_attn_npu import flash_attn_func\n")
    manual = [(m["line"], m["rule"]) for m in json.loads((tmp_path / "r.json").read_text())["manual"]]
    assert manual == [(2, "flash-attn-alibi"), (2, "flash-attn-softcap"), (4, "flash-attn-attn-probs")]


def test_in_place_creates_each_shim_as_a_new_file(run, tmp_path):
    src = write_tree(tmp_path / "src", TREE)
    r = run("migrate", src, "--in-place")
    assert r.returncode == 0, r.stderr
    backups = {rel + ".orig": text.encode() for rel, text in TREE.items() if MIGRATED[rel] != text}
    assert files_of(src) == dict(sorted({**expected_tree(MIGRATED, SHIMS_WRITTEN), **backups}.items()))
    assert oct((src / "models" / "xformers_npu.py").stat().st_mode & 0o777) == "0o644"
    # a second run finds everything migrated: no change, no shim, no backup
    again = run("migrate", src, "--in-place", "--report", tmp_path / "again.json")
    assert again.returncode == 0, again.stderr
    report = json.loads((tmp_path / "again.json").read_text())
    assert report["changes"] == [] and report["shims"] == [] and report["manual"] == []
    assert files_of(src) == dict(sorted({**expected_tree(MIGRATED, SHIMS_WRITTEN), **backups}.items()))


@pytest.mark.parametrize("mode", ["-o", "--in-place"])
def test_a_file_of_the_shims_name_that_is_not_banjias_blocks_the_redirect_there(run, tmp_path, mode):
    files = {"pkg/flash_attn_npu.py": "# my own\n", "pkg/train.py": "from flash_attn import flash_attn_func\n",
             "other/train.py": "from flash_attn import flash_attn_func\n"}
    src = write_tree(tmp_path / "src", files)
    out = tmp_path / "out"
    r = run("migrate", src, *([mode, out] if mode == "-o" else [mode]), "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    tree = files_of(out if mode == "-o" else src)
    assert tree["pkg/flash_attn_npu.py"] == b"# my own\n"
    assert tree["pkg/train.py"] == b"from flash_attn import flash_attn_func\n"
    assert tree["other/train.py"] == b"from flash_attn_npu import flash_attn_func\n"
    assert tree["other/flash_attn_npu.py"] == shim_bytes("flash_attn_npu.py")
    report = json.loads((tmp_path / "r.json").read_text())
    assert [s["file"] for s in report["shims"]] == ["other/flash_attn_npu.py"]
    manual = [(m["file"], m["rule"], m["message"]) for m in report["manual"]]
    assert ("pkg/train.py", "flash-attn-shim",
            "pkg/flash_attn_npu.py exists and is not banjia's shim: the import is not redirected to flash_attn_npu") in manual
    # the shim rule's finding is on the statement, the library's on the name it imports
    assert [m[:2] for m in manual] == [("pkg/train.py", "flash-attn-shim"), ("pkg/train.py", "flash-attn")]


def test_a_copy_of_banjias_shim_is_used_as_it_is(run, tmp_path):
    src = write_tree(tmp_path / "src", {"train.py": "import flash_attn\nout = flash_attn.flash_attn_func(q, k, v)\n"})
    (src / "flash_attn_npu.py").write_bytes(shim_bytes("flash_attn_npu.py"))
    r = run("migrate", src, "-o", tmp_path / "out", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert files_of(tmp_path / "out") == {
        "flash_attn_npu.py": shim_bytes("flash_attn_npu.py"),
        "train.py": b"import flash_attn_npu as flash_attn\nout = flash_attn.flash_attn_func(q, k, v)\n"}
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["shims"] == [] and [c["rule"] for c in report["changes"]] == ["flash-attn-shim"]


def test_check_dry_run_and_diff_show_the_new_file(run, tmp_path):
    src = write_tree(tmp_path / "src", {"train.py": "from flash_attn import flash_attn_func\n"})
    before = files_of(src)
    check = run("migrate", src, "--check")
    assert check.returncode == 1, check.stderr
    assert "1 changed" in check.stdout and "new files to write" in check.stdout and "flash_attn_npu.py  (flash_attn" in check.stdout
    dry = run("migrate", src, "--dry-run", "--diff")
    assert dry.returncode == 0, dry.stderr
    shim_lines = "".join("+" + line for line in shim_bytes("flash_attn_npu.py").decode().splitlines(keepends=True))
    assert f"--- /dev/null\n+++ b/flash_attn_npu.py\n@@ -0,0 +1,{len(shim_lines.splitlines())} @@\n{shim_lines}" in dry.stdout
    assert "-from flash_attn import flash_attn_func\n+from flash_attn_npu import flash_attn_func\n" in dry.stdout
    assert files_of(src) == before  # nothing written
    # after a migration, --check finds nothing left to do
    assert run("migrate", src, "-o", tmp_path / "out").returncode == 0
    assert run("migrate", tmp_path / "out", "--check").returncode == 0


def test_migrating_the_output_again_changes_nothing(run, tmp_path):
    src = write_tree(tmp_path / "src", TREE)
    assert run("migrate", src, "-o", tmp_path / "once").returncode == 0
    r = run("migrate", tmp_path / "once", "-o", tmp_path / "twice", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert files_of(tmp_path / "twice") == files_of(tmp_path / "once")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["changes"] == [] and report["shims"] == [] and report["summary"]["files_changed"] == 0


@pytest.mark.parametrize("mode", ["-o", "--in-place"])
def test_a_single_file_gets_its_shim_beside_where_it_is_written(run, tmp_path, mode):
    src = write_tree(tmp_path / "src", {"train.py": "from apex.optimizers import FusedSGD\n"})
    args = [mode, tmp_path / "out" / "renamed.py"] if mode == "-o" else [mode, "--no-backup"]
    r = run("migrate", src / "train.py", *args)
    assert r.returncode == 0, r.stderr
    where = tmp_path / "out" if mode == "-o" else src
    assert files_of(where) == {"apex_npu.py": shim_bytes("apex_npu.py"),
                               "renamed.py" if mode == "-o" else "train.py": b"from apex_npu import FusedSGD\n"}


def test_a_scripts_own_module_named_as_the_library_keeps_its_imports(run, tmp_path):
    # `import flash_attn` in a script finds the flash_attn.py beside it first: the project's code
    src = write_tree(tmp_path / "src", {"flash_attn.py": "def flash_attn_func(q, k, v):\n    return q\n",
                                        "train.py": "from flash_attn import flash_attn_func\n"})
    r = run("migrate", src, "-o", tmp_path / "out", "--report", tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    assert files_of(tmp_path / "out") == files_of(src)
    manual = [(m["rule"], m["message"]) for m in json.loads((tmp_path / "r.json").read_text())["manual"]]
    assert ("flash-attn-shim", "flash_attn.py is this project's own module flash_attn, not the library: "
                               "the import is not redirected to flash_attn_npu") in manual


def test_a_binary_away_from_the_source_tree_writes_the_shims(banjia_bin, tmp_path):
    # The shims are compiled into the binary with the rest of data/: an installed banjia (or the one
    # in a wheel) reads no data directory.
    binary = tmp_path / "bin" / "banjia"
    binary.parent.mkdir()
    binary.write_bytes(pathlib.Path(banjia_bin).read_bytes())
    binary.chmod(0o755)
    src = write_tree(tmp_path / "src", {"train.py": "import xformers.ops as xops\nmlp = xops.SwiGLU(8, 16)\n"})
    done = subprocess.run([str(binary), "migrate", "src", "-o", "out"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert files_of(tmp_path / "out") == {"train.py": b"import xformers_npu as xops\nmlp = xops.SwiGLU(8, 16)\n",
                                          "xformers_npu.py": shim_bytes("xformers_npu.py")}
    assert files_of(src) == {"train.py": b"import xformers.ops as xops\nmlp = xops.SwiGLU(8, 16)\n"}


def test_the_bert_padding_submodule_imported_by_name_is_redirected(run, tmp_path):
    # `from flash_attn import bert_padding` (nanotron) reads the submodule's functions as attributes.
    src = write_tree(tmp_path / "src", {"pad.py": (
        "import torch\nfrom flash_attn import bert_padding\n\n"
        "x = torch.arange(12.0).reshape(2, 3, 2)\nmask = torch.tensor([[1, 1, 0], [1, 0, 0]])\n"
        "flat, idx, cu, mx, used = bert_padding.unpad_input(x, mask)\n"
        "back = bert_padding.pad_input(flat, idx, 2, 3)\n"
        "print(flat.shape[0], cu.tolist(), mx, bool((back == x * mask.unsqueeze(-1)).all()))\n")})
    r = run("migrate", src, "-o", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    assert "from flash_attn_npu import bert_padding" in (out / "pad.py").read_text()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "pad.py"], capture_output=True, text=True, env=env, cwd=out, timeout=120)
    # 3 kept tokens, sequence ends [0, 2, 3], longest 2, and padding back restores the kept ones.
    assert done.returncode == 0 and done.stdout.split() == ["3", "[0,", "2,", "3]", "2", "True"], done.stderr
