"""scan and migrate do work linear in the number of findings of one file.

The work is counted, not timed: valgrind's callgrind counts the instructions banjia executes, which
is the same for the same binary and input whatever else the machine is doing. For files of n, 2n and
4n lines of CUDA uses, linear work makes the extra work of 4n over 2n twice that of 2n over n (the
fixed cost of start-up and the rule catalogue cancels out); work quadratic in the findings makes it
four times. The input mixes the rule kinds whose safety checks relate findings to each other (guards,
capability reads, device strings, moved tensors).
"""
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from scan_scaling import cuda_uses  # noqa: E402  (the same mix of CUDA uses the bench row times)

LINES = (1000, 2000, 4000)


def instructions(cmd: list[str]) -> int:
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                       capture_output=True, text=True, timeout=600)
    m = re.search(r"Collected : (\d+)", r.stderr)
    assert m and r.returncode in (0, 1), r.stderr[-2000:]
    return int(m.group(1))


@pytest.fixture(scope="module")
def counted_bin(banjia_bin):
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (scripts/install-deps.sh installs it)")
    probe = subprocess.run(["valgrind", "--error-exitcode=99", banjia_bin, "--version"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        # A sanitizer build maps shadow memory valgrind cannot host; the plain build is counted.
        pytest.skip("this banjia binary does not run under valgrind (a sanitizer build)")
    return banjia_bin


def growth(counts: list[int]) -> float:
    """(work(4n) - work(2n)) / (work(2n) - work(n)): 2 when linear, 4 when quadratic."""
    return (counts[2] - counts[1]) / (counts[1] - counts[0])


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("cost")
    files = []
    for n in LINES:
        p = d / f"uses_{n}.py"
        p.write_text(cuda_uses(n))
        files.append(p)
    return files


def test_scan_work_is_linear_in_findings(counted_bin, inputs):
    counts = [instructions([counted_bin, "scan", str(p), "--format", "json"]) for p in inputs]
    assert growth(counts) < 2.5, counts


def test_migrate_work_is_linear_in_findings(counted_bin, inputs, tmp_path):
    counts = [instructions([counted_bin, "migrate", str(p), "-o", str(tmp_path / p.stem)]) for p in inputs]
    assert growth(counts) < 2.5, counts
    # The rewrite happened (the count is of real work): every .cuda() became .npu().
    out = (tmp_path / inputs[0].stem / inputs[0].name).read_text()
    assert ".cuda()" not in out and out.count(".npu()") == cuda_uses(LINES[0]).count(".cuda()")
