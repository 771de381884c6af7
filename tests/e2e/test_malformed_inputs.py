"""Runs the malformed-input corpus (tests/malformed/manifest.toml) through the CLI.

Each case names a verb's command line, an input (a file under tests/malformed/ or one generated here
at run time: deep nesting, symlink loops, '..' paths, huge files), the exact exit code, and a regex
for the single stderr line (naming the file) or for the per-item status in the report on stdout.
Whatever the input, banjia must never crash (signal / exit >= 128 / sanitizer report) or hang.
"""
import gzip
import os
import pathlib
import re
import shutil
import struct
import subprocess
import tomllib
import zipfile

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


def gen_gzip_bomb_trace(d):  # 3 MiB of JSON in ~3 KiB of gzip
    p = d / "bomb.json.gz"
    with gzip.open(p, "wb", compresslevel=9) as f:
        f.write(b'{"traceEvents": [' + b" " * (3 << 20) + b"]}")
    return p


def gen_trace_copy(d):  # a trace the case may try to overwrite (never the repository's own)
    p = d / "t.json.gz"
    shutil.copy(HERE.parent / "fixtures" / "gpu-h200" / "traces" / "antipattern_conv_in_loop_slow.json.gz", p)
    return p


def gen_huge_field_csv(d):
    p = d / "run.csv"
    p.write_text("iteration,ms\n1," + "x" * 5_000_000 + "\n")
    return p


def gen_file_beside_another(d):  # a file to migrate and an unrelated one where the output is aimed
    (d / "other.py").write_text("unrelated\n")
    p = d / "f.py"
    p.write_text("import torch\nx = torch.randn(2).cuda()\n")
    return p


def gen_dotdot_missing(d):
    return d / "nowhere" / ".." / ".." / "missing_dir_x" / "train.py"


def gen_deep_nesting_trace(d):  # 100 000 nested arrays as the event list
    p = d / "deep.json"
    p.write_text('{"traceEvents": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return p


def gen_deep_nesting_trace_args(d):  # one good event whose args nest 100 000 arrays deep
    p = d / "deep_args.json"
    p.write_text('{"traceEvents": [\n  {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, '
                 '"dur": 1, "args": ' + "[" * 100_000 + "]" * 100_000 + "}\n]}")
    return p


def gen_empty_profiler_output(d):  # a torch_npu output whose ASCEND_PROFILER_OUTPUT holds nothing
    root = d / "rank0_ascend_pt"
    (root / "ASCEND_PROFILER_OUTPUT").mkdir(parents=True)
    return root


def npy_bytes(values):  # float32 1-d .npy, written by hand (numpy format 1.0)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
            + struct.pack("<%df" % len(values), *values))


def gen_npz_zip_bomb(d):  # 64 MiB of zeros deflated to ~64 KiB: ratio above the 1000:1 guard
    p = d / "bomb.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("zeros.npy", "w") as m:
            m.write(npy_bytes([]))  # a header, then the zeros streamed in
            zeros = bytes(1 << 20)
            for _ in range(64):
                m.write(zeros)
    return p


def gen_deep_nesting_index(d):  # banjia capture index.json nested 100 000 deep
    (d / "dump").mkdir()
    (d / "dump" / "index.json").write_text('{"entries": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return d / "dump"


def gen_npy_symlink_loop_dir(d):  # a.npy -> b.npy -> a.npy next to a good tensor
    root = d / "npys"
    root.mkdir()
    (root / "real.npy").write_bytes(npy_bytes([1.0, 2.0, 3.0]))
    os.symlink(root / "b.npy", root / "a.npy")
    os.symlink(root / "a.npy", root / "b.npy")
    return root


def gen_dump_json_symlink_loop(d):  # msprobe dir whose dump.json points at itself
    root = d / "rank0"
    root.mkdir()
    os.symlink(root / "dump.json", root / "dump.json")
    return root


def gen_dump_dir_symlink_cycles(d):  # no dump inside, only directory cycles for the dump.json search
    root = d / "dumps"
    (root / "step0" / "rank0").mkdir(parents=True)
    os.symlink(root, root / "step0" / "rank0" / "up")
    os.symlink(root / "step0", root / "step0" / "rank0" / "loop")
    return root


def gen_dev_zero(d):  # endless NUL bytes
    return pathlib.Path("/dev/zero")


def gen_fifo_without_writer(d):  # opening it to read waits for a writer that never comes
    p = d / "nobody_writes.sh"
    os.mkfifo(p)
    return p


def gen_dump_json_on_dev_zero(d):  # an msprobe dump.json that is a link to /dev/zero
    (d / "rank0").mkdir()
    os.symlink("/dev/zero", d / "rank0" / "dump.json")
    return d / "rank0" / "dump.json"


def gen_trace_and_dev_zero_map(d):  # a good trace at {tmp}/t.json; the input is the --map file
    (d / "t.json").write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 1, '
                              '"ts": 1, "dur": 2}]}')
    return pathlib.Path("/dev/zero")


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
    # A directory input (a profiler output, a capture dir) covers the files inside it.
    covered = {f for f in files if any(f == u or f.startswith(u + "/") for u in used)}
    assert files <= covered, f"corpus files without a manifest case: {sorted(files - covered)}"
    assert {c["generate"] for c in MANIFEST if "generate" in c} <= set(GENERATORS)


def test_migrate_single_file_to_bare_relative_name(run, tmp_path):
    """Regression (found with this corpus): `migrate f.py -o out.py` with no directory part failed
    with 'Invalid argument' (create_directories("")) and wrote nothing."""
    src = tmp_path / "f.py"
    src.write_text("import torch\nx = torch.randn(2).cuda()\n")
    r = run("migrate", "f.py", "-o", "out.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.py").read_text() == "import torch\nimport torch_npu\nx = torch.randn(2).npu()\n"
