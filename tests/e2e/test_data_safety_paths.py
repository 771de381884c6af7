"""No verb writes outside where it was told, through a link, or over one of its own inputs
(docs/data-safety.md, "Paths"). What each test checks is on disk: bytes and os.stat, taken before and
after, never banjia's own account of what it did.
"""
import hashlib
import os
import pathlib
import shutil
import struct

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
H200 = REPO / "tests" / "fixtures" / "gpu-h200"
CUDA = "import torch\nx = torch.randn(2).cuda()\n"


def digest(p):
    return hashlib.sha256(pathlib.Path(p).read_bytes()).hexdigest()


def snapshot(root):
    """Every entry under root: kind, and bytes or link text."""
    out = {}
    for p in sorted(pathlib.Path(root).rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_file():
            out[rel] = ("file", p.read_bytes())
        else:
            out[rel] = ("dir", None)
    return out


def test_force_never_writes_through_links_already_in_out(run, tmp_path):
    """`-o OUT --force` never writes through links in OUT: a link where a file goes is replaced, one
    where a directory goes is named on one line and nothing is written through it."""
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "a.py").write_text(CUDA)
    (src / "pkg" / "b.py").write_text(CUDA)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.py").write_text("precious\n")
    (outside / "b.py").write_text("also precious\n")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside / "victim.py", out / "a.py")   # a link where a file goes
    os.symlink(outside, out / "pkg")                  # a link where a directory goes
    before = snapshot(outside)
    r = run("migrate", src, "-o", out, "--force")
    assert snapshot(outside) == before
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"banjia: pkg/b.py: not written: {out / 'pkg'}: is a symbolic link in the output directory; nothing is "
        "written through it"]
    assert not (out / "a.py").is_symlink() and "torch_npu" in (out / "a.py").read_text()  # the link replaced
    assert os.readlink(out / "pkg") == str(outside)


def test_single_file_output_replaces_nothing_without_force(run, tmp_path):
    """`migrate FILE -o EXISTING` and `-o LINK` refuse without --force; with it, the link itself is
    replaced, never its target, and the file being migrated is never its own output."""
    f = tmp_path / "f.py"
    f.write_text(CUDA)
    other = tmp_path / "other.py"
    other.write_text("unrelated\n")
    link = tmp_path / "link.py"
    os.symlink(other, link)
    for dest, what in ((other, "exists"), (link, "is a symbolic link")):
        r = run("migrate", f, "-o", dest)
        assert r.returncode == 2 and r.stderr.startswith(f"banjia: {dest}: {what}; use --force"), r.stderr
    assert other.read_text() == "unrelated\n"
    r = run("migrate", f, "-o", link, "--force")  # the link itself is replaced, never its target
    assert r.returncode == 0, r.stderr
    assert other.read_text() == "unrelated\n" and not link.is_symlink() and "torch_npu" in link.read_text()
    for dest in (f, tmp_path / "f-link.py"):
        if dest != f:
            os.symlink(f, dest)
        r = run("migrate", f, "-o", dest, "--force")
        assert r.returncode == 2 and "is the file being migrated" in r.stderr, r.stderr
        assert f.read_text() == CUDA


def npy(values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
            + struct.pack("<%df" % len(values), *values))


def writing_verbs(d):
    """(name, argv, the input the output names) for every verb that writes, each aiming its output
    (the last argument) at one of its own inputs, directly or through a link."""
    d.mkdir()
    trace = d / "t.json.gz"
    shutil.copy(H200 / "traces" / "antipattern_conv_in_loop_slow.json.gz", trace)
    trace2 = d / "t2.json.gz"
    shutil.copy(H200 / "traces" / "antipattern_small_matmuls_slow.json.gz", trace2)
    (d / "a.npy").write_bytes(npy([1.0, 2.0]))
    (d / "b.npy").write_bytes(npy([1.0, 2.5]))
    bench_a, bench_b = d / "a.csv", d / "b.csv"
    shutil.copy(H200 / "bench" / "resnet50_fp32.csv", bench_a)
    shutil.copy(H200 / "bench" / "resnet50_bf16_channels_last.csv", bench_b)
    (d / "run.sh").write_text("export CUDA_VISIBLE_DEVICES=0\n")
    tree = d / "proj"
    tree.mkdir()
    (tree / "a.py").write_text(CUDA)
    os.symlink(trace, d / "trace-link.json.gz")
    return [
        ("scan -o", ["scan", tree, "-o", tree / "a.py"], tree / "a.py"),
        ("migrate --in-place --report", ["migrate", tree, "--in-place", "--report", tree / "a.py"], tree / "a.py"),
        ("migrate -o --report", ["migrate", tree, "-o", d / "o", "--report", tree / "a.py"], tree / "a.py"),
        ("trace summary --html", ["trace", "summary", trace, "--html", trace], trace),
        ("trace summary -o link", ["trace", "summary", trace, "-o", d / "trace-link.json.gz"], trace),
        ("trace compare -o", ["trace", "compare", trace, trace2, "-o", trace2], trace2),
        ("trace ops --html", ["trace", "ops", trace, "--html", trace], trace),
        ("compare -o", ["compare", d / "a.npy", d / "b.npy", "-o", d / "b.npy"], d / "b.npy"),
        ("compare --html", ["compare", d / "a.npy", d / "b.npy", "--html", d / "a.npy"], d / "a.npy"),
        ("bench compare -o", ["bench", "compare", bench_a, bench_b, "-o", bench_a], bench_a),
        ("bench compare --html", ["bench", "compare", bench_a, bench_b, "--html", bench_b], bench_b),
        ("env check -o", ["env", "check", d / "run.sh", "-o", d / "run.sh"], d / "run.sh"),
        ("env translate -o", ["env", "translate", d / "run.sh", "-o", d / "run.sh"], d / "run.sh"),
    ]


@pytest.mark.parametrize("case", range(13))
def test_no_output_replaces_an_input(run, tmp_path, case):
    """An output aimed at one of the verb's own inputs (`trace summary T --html T`, `migrate D
    --in-place --report D/a.py`, directly or through a link): every writing verb refuses, exit 2, one
    line, the input intact."""
    name, argv, victim = writing_verbs(tmp_path / "d")[case]
    before = snapshot(tmp_path / "d")
    r = run(*argv)
    assert r.returncode == 2, (name, r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1, (name, r.stderr)
    assert r.stderr.startswith(f"banjia: {argv[-1]}: is "), (name, r.stderr)  # the output, as it was named
    assert "input" in r.stderr or "migrat" in r.stderr, (name, r.stderr)
    assert snapshot(tmp_path / "d") == before, name


def test_in_place_never_follows_a_link_out_of_the_tree(run, tmp_path):
    """In place, a link is left as it is, and the file it points to is migrated only as a file of the
    tree itself, never through the link."""
    outside = tmp_path / "outside.py"
    outside.write_text(CUDA)
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "inside.py").write_text(CUDA)
    os.symlink(outside, tree / "link.py")
    os.symlink("inside.py", tree / "alias.py")
    r = run("migrate", tree, "--in-place")
    assert r.returncode == 0, r.stderr
    assert outside.read_text() == CUDA and not (tmp_path / "outside.py.orig").exists()
    assert os.readlink(tree / "link.py") == str(outside) and os.readlink(tree / "alias.py") == "inside.py"
    assert "torch_npu" in (tree / "inside.py").read_text()


def test_an_empty_tree_migrates_to_an_empty_out(run, tmp_path):
    """`migrate EMPTYDIR -o OUT` succeeds and makes an empty OUT."""
    (tmp_path / "empty").mkdir()
    r = run("migrate", tmp_path / "empty", "-o", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out").is_dir() and list((tmp_path / "out").iterdir()) == []


def test_a_fifo_in_the_tree_is_named_not_silently_dropped(run, tmp_path):
    """A FIFO in the tree is named on one line (exit 2), not silently left out of the -o copy."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(CUDA)
    os.mkfifo(src / "pipe")
    r = run("migrate", src, "-o", tmp_path / "out")
    assert r.returncode == 2
    assert r.stderr.splitlines() == ["banjia: pipe: a FIFO, not a regular file: not copied"]
    assert sorted(os.listdir(tmp_path / "out")) == ["a.py"]
    r = run("migrate", src, "--check")  # in place it is left where it is: nothing to examine
    assert r.returncode == 1 and r.stderr == ""
