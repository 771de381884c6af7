"""Exit codes tell the truth (docs/data-safety.md, "Exit codes"): anything not examined, not
readable or not written fails the run with one line per file; reports count only what happened; a
report that never reached stdout is a failure; a full disk and `ulimit -f` give one clear line each.
"""
import contextlib
import json
import os
import pathlib
import re
import resource
import shutil
import subprocess
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
H200 = REPO / "tests" / "fixtures" / "gpu-h200"
CUDA = "import torch\nx = torch.randn(2).cuda()\n"
NOBODY = 65534


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def run_as_user(banjia_bin, *args):
    pre = as_nobody if os.geteuid() == 0 else None
    return subprocess.run([banjia_bin, *map(str, args)], capture_output=True, text=True, preexec_fn=pre, timeout=120)


def world_tree(base):
    """A tree nobody can read and write, except what a test then makes unreadable."""
    src = base / "src"
    (src / "ok").mkdir(parents=True)
    (src / "locked").mkdir()
    (src / "ok" / "a.py").write_text(CUDA)
    (src / "locked" / "b.py").write_text(CUDA)
    for p in [src, *src.rglob("*")]:
        p.chmod(0o777 if p.is_dir() else 0o666)
    return src


@pytest.mark.parametrize("mode", [["--check"], ["--dry-run"], ["--in-place"], ["-o", "OUT"]])
def test_an_unreadable_directory_fails_every_mode(banjia_bin, tmp_path, mode):
    """With one unreadable subdirectory, every mode (--check, --dry-run, --in-place, -o) names it on
    one stderr line, still examines the readable files, and exits 2."""
    base = pathlib.Path(tempfile.mkdtemp(prefix="banjia-unreadable-"))
    try:
        base.chmod(0o777)
        src = world_tree(base)
        (src / "locked").chmod(0)
        args = [a if a != "OUT" else str(base / "out") for a in mode]
        r = run_as_user(banjia_bin, "migrate", src, *args)
        assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
        assert r.stderr.splitlines() == ["banjia: locked: cannot read directory: Permission denied"]
        assert re.search(r"\b1 files examined", r.stdout), r.stdout  # ok/a.py still was
    finally:
        (base / "src" / "locked").chmod(0o777)
        shutil.rmtree(base, ignore_errors=True)


def test_check_on_one_bad_file_fails(banjia_bin, tmp_path):
    """`migrate F --check` exits 2 with one line for an unreadable F, a too large one, or one not UTF-8."""
    base = pathlib.Path(tempfile.mkdtemp(prefix="banjia-unreadable-"))
    try:
        base.chmod(0o777)
        locked = base / "locked.py"
        locked.write_text(CUDA)
        locked.chmod(0)
        big = base / "big.py"
        with open(big, "wb") as f:
            f.truncate((64 << 20) + 1)  # sparse: costs no disk
        latin = base / "latin.py"
        latin.write_bytes(b"x = '\xe9'\ny.cuda()\n")
        for f, problem in ((locked, "cannot open: Permission denied"), (big, "file larger than 64 MiB, not read"),
                           (latin, "invalid UTF-8 on line 1, column 6 (byte 0xE9)")):
            r = run_as_user(banjia_bin, "migrate", f, "--check")
            assert r.returncode == 2, (f, r.stdout, r.stderr)
            assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(f"banjia: {f.name}: {problem}"), r.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_problems_beyond_the_cap_are_counted(run, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(25):
        (src / f"bad{i:02d}.py").write_text("x = y.cuda(\n")
    r = run("migrate", src, "--check")
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 21 and lines[-1] == "banjia: and 5 more files not migrated (every one is in --report)"


def test_a_file_not_written_is_not_counted_as_changed(banjia_bin, tmp_path):
    """A file that could not be replaced counts as an error, not as "changed", in the report, the
    summary line and the exit code (2)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "small.py").write_text(CUDA)
    (src / "large.py").write_text(CUDA * 800)  # rewritten, more than the file size limit below

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (24 * 1024, 24 * 1024))

    report = tmp_path / "r.json"
    r = subprocess.run([banjia_bin, "migrate", str(src), "--in-place", "--no-backup", "--report", str(report)],
                       capture_output=True, text=True, preexec_fn=limit)
    assert r.returncode == 2
    assert r.stderr.splitlines() == ["banjia: large.py: not written: write failed: File too large; left as it is"]
    summary = json.loads(report.read_text())["summary"]
    migrated = [p.name for p in src.iterdir() if "torch_npu" in p.read_text()]
    assert migrated == ["small.py"]
    assert summary["files_changed"] == len(migrated) and summary["errors"] == 1
    assert summary["edits"] == 2  # small.py's .cuda() and its import; none of large.py's
    assert "banjia migrate: 2 files examined, 1 changed, 2 edits" in r.stdout


STDOUT_VERBS = {
    "scan": ["scan", REPO / "examples" / "cifar_ddp"],
    "migrate --check": ["migrate", REPO / "examples" / "cifar_ddp", "--check"],
    "migrate --diff": ["migrate", REPO / "examples" / "cifar_ddp", "--dry-run", "--diff"],
    "trace summary": ["trace", "summary", H200 / "traces" / "antipattern_conv_in_loop_slow.json.gz"],
    "compare": ["compare", H200 / "dumps" / "resnet18_cuda_fp16", H200 / "dumps" / "resnet18_cuda_bf16amp"],
    "bench compare": ["bench", "compare", H200 / "bench" / "resnet50_fp32.csv",
                      H200 / "bench" / "resnet50_bf16_channels_last.csv"],
    "env translate": ["env", "translate", REPO / "examples" / "cifar_ddp" / "scripts" / "launch.sh"],
    "env explain": ["env", "explain", "TASK_QUEUE_ENABLE"],
    "env template": ["env", "template", "--scenario", "training"],
}


@pytest.mark.parametrize("verb", sorted(STDOUT_VERBS))
def test_a_report_that_never_reached_stdout_fails(banjia_bin, verb):
    """A failed write to stdout fails the run: exit 2 and one stderr line saying so, whatever the verb."""
    with open("/dev/full", "w") as full:
        r = subprocess.run([banjia_bin, *map(str, STDOUT_VERBS[verb])], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=300)
    assert r.returncode == 2, (verb, r.returncode, r.stderr)
    assert r.stderr.splitlines()[-1] == "banjia: stdout: write failed: No space left on device", r.stderr
    assert sum("stdout" in line for line in r.stderr.splitlines()) == 1


@contextlib.contextmanager
def small_tmpfs(path, size):
    """A file system of `size` bytes at `path`, or a skip that says why the machine allows none."""
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("a full-disk test needs a small tmpfs, and mounting one needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()}): the full-disk test needs one")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(disk, leave):
    """Fills `disk` until `leave` bytes are free."""
    with open(disk / "filler", "wb") as f:
        while True:
            free = shutil.disk_usage(disk).free
            if free <= leave:
                break
            try:
                f.write(b"\0" * min(free - leave, 1 << 16))
                f.flush()
            except OSError:
                break


def test_a_full_disk_names_every_file_and_loses_nothing(run, tmp_path):
    """On a full disk every file not written gets one stderr line, every original is intact, nothing
    temporary stays, and once there is room a rerun finishes the job."""
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    for i in range(6):
        (pristine / f"m{i}.py").write_text(CUDA * 200)
    oracle = tmp_path / "oracle"
    assert run("migrate", pristine, "-o", oracle).returncode == 0
    with small_tmpfs(tmp_path / "disk", 512 * 1024) as disk:
        tree = disk / "t"
        shutil.copytree(pristine, tree)
        fill(disk, 40 * 1024)  # room for about one file, its backup and a temporary file
        r = run("migrate", tree, "--in-place", "--report", disk / "report.json")
        assert r.returncode == 2
        per_file = re.compile(r"banjia: m\d\.py: not written: .*No space left on device; left as it is")
        report_line = f"banjia: {disk / 'report.json'}: write failed: No space left on device"
        lines = r.stderr.splitlines()
        assert any(per_file.fullmatch(line) for line in lines), r.stderr
        assert all(per_file.fullmatch(line) or line == report_line for line in lines), r.stderr
        for p in tree.iterdir():
            assert ".banjia-" not in p.name
            if p.suffix == ".py" and "torch_npu" not in p.read_text():
                assert p.read_bytes() == (pristine / p.name).read_bytes()
                assert not (tree / (p.name + ".orig")).exists()
        (disk / "filler").unlink()
        r = run("migrate", tree, "--in-place")
        assert r.returncode == 0, r.stderr
        for p in pristine.iterdir():
            assert (tree / p.name).read_bytes() == (oracle / p.name).read_bytes()
            assert (tree / (p.name + ".orig")).read_bytes() == p.read_bytes()
