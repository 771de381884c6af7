"""Bounded work and smaller guarantees (docs/data-safety.md, "Bounded work" and "Python files that
CPython would reject"): a cap on inflated inputs, control characters in names, dump data files outside
the dump, TabError, oversized fields in messages.
Oracles: Python's own gzip, zipfile and compile(), and bytes the test wrote.
"""
import gzip
import io
import json
import os
import pathlib
import random
import struct
import zipfile

import numpy as np
import pytest

CUDA = "import torch\nx = torch.randn(2).cuda()\n"


def test_a_gzip_that_inflates_past_the_cap_is_refused(run, tmp_path):
    """A .json.gz that inflates past --max-input-size is refused with one line instead of filling memory."""
    bomb = tmp_path / "bomb.json.gz"
    body = b'{"traceEvents": [' + b" " * (3 << 20) + b"]}"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        f.write(body)
    assert bomb.stat().st_size < 10_000
    r = run("trace", "summary", bomb, "--max-input-size", "2M")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"banjia: {bomb}: inflates to more than 2 MiB (--max-input-size); not read\n"
    # At the size it really inflates to, the same file is read (and found to hold no events).
    r = run("trace", "summary", bomb, "--max-input-size", str(len(body)))
    assert "--max-input-size" not in r.stderr and "no complete" in r.stderr
    r = run("trace", "summary", bomb, "--max-input-size", "lots")
    assert r.returncode == 2 and "--max-input-size" in r.stderr


def npy_bytes(values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
            + struct.pack("<%df" % len(values), *values))


def test_an_npz_member_past_the_cap_is_not_read(run, tmp_path):
    rng = random.Random(3)
    values = [rng.random() for _ in range(600_000)]  # 2.4 MB that does not compress
    for name in ("a.npz", "b.npz"):
        with zipfile.ZipFile(tmp_path / name, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("x.npy", npy_bytes(values))
    r = run("compare", tmp_path / "a.npz", tmp_path / "b.npz", "-f", "json", "--max-input-size", "1M")
    doc = json.loads(r.stdout)
    assert [e["status"] for e in doc["entries"]] == ["error"]
    assert "inflates to 2.3 MiB, more than 1 MiB (--max-input-size)" in json.dumps(doc["entries"][0]), doc
    r = run("compare", tmp_path / "a.npz", tmp_path / "b.npz", "-f", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["entries"][0]["status"] == "pass"


def test_control_characters_in_names_print_inert(run, tmp_path):
    """ESC and newline in file names are printed escaped (\\x1b, \\n) in text reports, never raw."""
    src = tmp_path / "src"
    src.mkdir()
    name = "red\x1b[31m\nline.py"
    (src / name).write_text(CUDA)
    (src / "bad\x1b[2J.py").write_text("x = (\n")
    for argv in (["scan", src], ["migrate", src, "--dry-run"]):
        r = run(*argv)
        for stream in (r.stdout, r.stderr):
            assert "\x1b" not in stream, (argv, stream)
        text = r.stdout + r.stderr
        assert "\\x1b[2J" in text, (argv, text)
    r = run("scan", src)
    assert "red\\x1b[31m\\nline.py" in r.stdout


def test_a_dump_data_file_outside_the_dump_is_not_read(run, tmp_path):
    """An msprobe data_name that points outside the dump directory ('../', absolute) is not read: the
    entry is an error that says why."""
    secret = tmp_path / "secret.npy"
    np.save(secret, np.arange(4, dtype=np.float32))
    for side in ("npu", "gpu"):
        d = tmp_path / side
        (d / "dump_tensor_data").mkdir(parents=True)
        np.save(d / "dump_tensor_data" / "ok.npy", np.arange(4, dtype=np.float32))
        leaf = {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4], "Max": 3.0, "Min": 0.0,
                "Mean": 1.5, "Norm": 3.74, "requires_grad": False}
        data = {
            "Tensor.add.0.forward": {"input_args": [], "input_kwargs": {}, "output": [dict(leaf, data_name="ok.npy")]},
            "Tensor.mul.0.forward": {"input_args": [], "input_kwargs": {},
                                     "output": [dict(leaf, data_name="../../secret.npy")]},
            "Tensor.sub.0.forward": {"input_args": [], "input_kwargs": {},
                                     "output": [dict(leaf, data_name=str(secret))]},
        }
        (d / "dump.json").write_text(json.dumps({"task": "tensor", "level": "L1", "dump_data_dir": None,
                                                 "data": data}))
    r = run("compare", tmp_path / "npu", tmp_path / "gpu", "-f", "json")
    entries = {e["key"]: e for e in json.loads(r.stdout)["entries"]}
    assert entries["Tensor.add.0.forward.output.0"]["status"] == "pass"
    for key, name in (("Tensor.mul.0.forward.output.0", "../../secret.npy"),
                      ("Tensor.sub.0.forward.output.0", str(secret))):
        assert entries[key]["status"] == "error", entries[key]
        assert f"data file name {name} leaves the dump's directory; not read" in json.dumps(entries[key])


def random_indentation(rng):
    lines = []
    for depth in range(rng.randint(1, 4)):
        lines.append("".join(rng.choice([" ", "\t", "    ", "\t "]) for _ in range(depth)) + "if a:\n")
    lines.append("".join(rng.choice([" ", "\t"]) for _ in range(rng.randint(1, 6))) + "x.cuda()\n")
    return "".join(lines)


def test_inconsistent_tabs_are_a_syntax_error_as_in_cpython(run, tmp_path):
    """A file with a TabError is copied unchanged and reported, not rewritten. The oracle is CPython's
    compile()."""
    rng = random.Random(12)
    src = tmp_path / "src"
    src.mkdir()
    expected = {}
    for i in range(150):
        text = random_indentation(rng)
        try:
            compile(text, "f", "exec")
            expected[f"f{i:03d}.py"] = False
        except TabError:
            expected[f"f{i:03d}.py"] = True
        except SyntaxError:
            continue
        (src / f"f{i:03d}.py").write_text(text)
    assert 20 < sum(expected.values()) < len(expected) - 20  # both kinds, plenty of each
    out = tmp_path / "out"
    r = run("migrate", src, "-o", out, "--report", tmp_path / "r.json")
    manual = json.loads((tmp_path / "r.json").read_text())["manual"]
    tab_errors = {m["file"] for m in manual if "inconsistent use of tabs and spaces" in m["message"]}
    assert tab_errors == {f for f, tab in expected.items() if tab}
    for f, tab in expected.items():
        copied = (out / f).read_text() == (src / f).read_text()
        assert copied == tab, f  # a TabError file is copied unchanged; every other one has its .cuda() rewritten
    assert r.returncode == 2


def test_a_huge_invalid_field_is_quoted_short(run, tmp_path):
    """bench quotes a 5 MB invalid field shortened, on its one stderr line."""
    csv = tmp_path / "run.csv"
    csv.write_text("iteration,ms\n1," + "x" * 5_000_000 + "\n")
    js = tmp_path / "run.json"
    js.write_text(json.dumps({"format": "banjia.bench", "version": 1, "timing": {"unit": "u" * 5_000_000, "times": [1]}}))
    for f in (csv, js):
        r = run("bench", "compare", f, f)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
        assert len(r.stderr) < 400 and "more bytes)" in r.stderr, r.stderr[:400]
