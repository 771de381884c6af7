"""banjia compare on msprobe dumps, bare .npy/.npz files, and bad input."""
import json
import zipfile

import numpy as np
import pytest

from compare_reference import metrics


def as_json(p):
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_msprobe_statistics_fixtures_load(run, fixtures):
    d = fixtures / "msprobe"
    for name in ("statistics_mix", "api_checker", "layer_mapping"):
        out = as_json(run("compare", d / name, d / name, "--format", "json"))
        raw = json.load(open(d / name / "dump.json"))["data"]
        assert out["a"]["format"] == "msprobe" and out["a"]["task"] == "statistics"
        assert out["entries"], name
        assert {e["status"] for e in out["entries"]} <= {"pass", "skipped"}
        # every tensor leaf of every call appears as an entry
        calls = {e["module"] for e in out["entries"]}
        assert calls <= set(raw)


def write_msprobe(dir, task, rows):
    """rows: call -> list of (tensor, stats override or None)."""
    data_dir = dir / "dump_tensor_data"
    data_dir.mkdir(parents=True)
    data = {}
    for call, tensors in rows.items():
        outputs = []
        for i, t in enumerate(tensors):
            leaf = {"type": "torch.Tensor", "dtype": "torch.float32", "shape": list(t.shape),
                    "Max": float(np.max(t)), "Min": float(np.min(t)), "Mean": float(np.mean(t)),
                    "Norm": float(np.linalg.norm(t)), "requires_grad": False}
            if task == "tensor":
                leaf["data_name"] = f"{call}.output.{i}.npy"
                np.save(data_dir / leaf["data_name"], t)
            outputs.append(leaf)
        data[call] = {"input_args": [], "input_kwargs": {}, "output": outputs}
    # json.dump writes bare NaN/Infinity tokens, as msprobe's save_json does
    (dir / "dump.json").write_text(json.dumps({"task": task, "level": "L1", "dump_data_dir": None, "data": data},
                                              indent=1))


def test_msprobe_tensor_dumps_with_nan_tokens(run, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    y = x + rng.standard_normal((4, 8)).astype(np.float32) * 1e-3
    bad = x.copy()
    bad[0, 0] = np.nan
    write_msprobe(tmp_path / "npu", "tensor", {"Functional.linear.0.forward": [y], "Tensor.add.0.forward": [bad]})
    write_msprobe(tmp_path / "gpu", "tensor", {"Functional.linear.0.forward": [x], "Tensor.add.0.forward": [x]})
    assert "NaN" in (tmp_path / "npu" / "dump.json").read_text()
    out = as_json(run("compare", tmp_path / "npu", tmp_path / "gpu", "--format", "json"))
    e = {x["key"]: x for x in out["entries"]}
    lin = e["Functional.linear.0.forward.output.0"]
    exp = metrics(y, x)
    for k in ("cosine", "max_abs_err", "max_rel_err", "rmse", "one_thousandth_err_ratio"):
        assert lin[k] == pytest.approx(exp[k], rel=1e-9)
    add = e["Tensor.add.0.forward.output.0"]
    assert add["status"] == "fail" and add["nan_a"] == 1 and add["cosine"] is None
    assert out["first_nonfinite"]["a"]["key"] == "Tensor.add.0.forward.output.0"
    # statistics task: NaN statistics parse as NaN and flag the entry
    write_msprobe(tmp_path / "snpu", "statistics", {"Tensor.add.0.forward": [bad]})
    write_msprobe(tmp_path / "sgpu", "statistics", {"Tensor.add.0.forward": [x]})
    out = as_json(run("compare", tmp_path / "snpu", tmp_path / "sgpu", "--format", "json"))
    assert out["entries"][0]["mode"] == "statistics"
    assert out["first_nonfinite"]["a"] is not None


def test_fuzzy_match_by_name_without_call_count_and_unmatched_listed(run, tmp_path):
    x = np.ones((2, 2), np.float32)
    write_msprobe(tmp_path / "a", "tensor", {"Functional.relu.3.forward": [x], "Functional.gelu.0.forward": [x]})
    write_msprobe(tmp_path / "b", "tensor", {"Functional.relu.7.forward": [x], "Functional.silu.0.forward": [x]})
    out = as_json(run("compare", tmp_path / "a", tmp_path / "b", "--format", "json"))
    assert [(e["key"], e["key_b"], e["match"]) for e in out["entries"]] == [
        ("Functional.relu.3.forward.output.0", "Functional.relu.7.forward.output.0", "name_shape")]
    assert [u["key"] for u in out["unmatched"]["a"]] == ["Functional.gelu.0.forward.output.0"]
    assert [u["key"] for u in out["unmatched"]["b"]] == ["Functional.silu.0.forward.output.0"]


def test_npy_pair_orders_and_endianness(run, tmp_path):
    rng = np.random.default_rng(1)
    ref = rng.standard_normal((5, 7))
    test = ref + 1e-6
    np.save(tmp_path / "ref.npy", ref.astype(">f8"))               # big-endian float64
    np.save(tmp_path / "test.npy", np.asfortranarray(test.astype(np.float32)))  # Fortran order
    out = as_json(run("compare", tmp_path / "test.npy", tmp_path / "ref.npy", "--format", "json"))
    exp = metrics(test.astype(np.float32), ref)
    got = out["entries"][0]
    for k in ("cosine", "max_abs_err", "max_rel_err", "rmse"):
        assert got[k] == pytest.approx(exp[k], rel=1e-9)


def test_npz_pairs_shapes_empty_and_scalars(run, tmp_path):
    a = {"same": np.arange(6, dtype=np.float16).reshape(2, 3), "shape": np.zeros((2, 3), np.float32),
         "empty": np.zeros((0, 4), np.float32), "scalar": np.array(2.5, np.float32), "only_a": np.ones(2)}
    b = {"same": np.arange(6, dtype=np.float32).reshape(2, 3), "shape": np.zeros((3, 2), np.float32),
         "empty": np.zeros((0, 4), np.float32), "scalar": np.array(2.0, np.float32)}
    np.savez_compressed(tmp_path / "a.npz", **a)
    np.savez(tmp_path / "b.npz", **b)
    p = run("compare", tmp_path / "a.npz", tmp_path / "b.npz", "--format", "json")
    assert p.returncode == 1  # the shape mismatch fails
    e = {x["key"]: x for x in json.loads(p.stdout)["entries"]}
    assert e["same"]["status"] == "pass" and e["same"]["max_abs_err"] == 0
    assert e["shape"]["status"] == "fail" and e["shape"]["msprobe_result"] == "Unmatched"
    assert e["empty"]["status"] == "skipped"
    assert e["scalar"]["max_abs_err"] == pytest.approx(0.5)
    assert json.loads(p.stdout)["unmatched"]["a"][0]["key"] == "only_a"
    csv = run("compare", tmp_path / "a.npz", tmp_path / "b.npz", "--format", "csv").stdout
    scalar_row = next(line for line in csv.splitlines() if line.startswith("scalar,"))
    assert scalar_row.split(",")[6] == "unsupported"  # Cosine of a 0-d tensor, as msprobe writes it


def test_bad_npy_given_directly_is_bad_input_and_in_a_directory_an_entry_error(run, tmp_path):
    good = np.ones(4, np.float32)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    np.save(tmp_path / "ok.npy", good)
    raw = (tmp_path / "ok.npy").read_bytes()
    bad = {"magic": b"NOTNUMPY" + b"\0" * 100, "short": raw[:-4]}
    for name, data in bad.items():
        (tmp_path / f"{name}.npy").write_bytes(data)
    np.save(tmp_path / "cplx.npy", np.ones(4, np.complex64))
    problems = (("magic", "not an npy file (bad magic)"),
                ("short", "data shorter than the header says (12 bytes for 4 elements of float32)"),
                ("cplx", "unsupported npy dtype '<c8'"))
    for name, problem in problems:
        path = tmp_path / f"{name}.npy"
        for args in ((path, tmp_path / "ok.npy"), (tmp_path / "ok.npy", path)):
            p = run("compare", *args, "--format", "json")
            assert p.returncode == 2 and p.stdout == "", p.stdout
            assert p.stderr == f"banjia: {path}: {problem}\n"
        # Inside a directory the file is one entry of many: an error status, the rest compared.
        (tmp_path / "a" / "t.npy").write_bytes(path.read_bytes())
        np.save(tmp_path / "b" / "t.npy", good)
        p = run("compare", tmp_path / "a", tmp_path / "b", "--format", "json")
        assert p.returncode == 1, p.stderr
        entry = json.loads(p.stdout)["entries"][0]
        assert entry["status"] == "error" and problem in entry["message"]


def test_unsafe_zip_members_reported(run, tmp_path):
    buf = tmp_path / "x.npy"
    np.save(buf, np.ones(3, np.float32))
    with zipfile.ZipFile(tmp_path / "evil.npz", "w") as z:
        z.write(buf, "../escape.npy")
        z.write(buf, "fine.npy")
    out = as_json(run("compare", tmp_path / "evil.npz", tmp_path / "evil.npz", "--format", "json"))
    e = {x["key"]: x for x in out["entries"]}
    assert e["fine"]["status"] == "pass"
    assert e["../escape"]["status"] == "error" and "unsafe" in e["../escape"]["message"]


def test_zip_bomb_guard(run, tmp_path):
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.npy", b"\0" * (64 << 20))  # deflates > 1000:1
    out = as_json(run("compare", tmp_path / "bomb.npz", tmp_path / "bomb.npz", "--format", "json"))
    assert out["entries"][0]["status"] == "error"
    assert "zip bomb" in out["entries"][0]["message"]


def _file(p, name, data):
    (p / name).parent.mkdir(parents=True, exist_ok=True)
    (p / name).write_bytes(data)
    return p / name


@pytest.mark.parametrize("setup, needle", [
    (lambda p: p / "missing", "no such file"),
    (lambda p: _file(p, "m.pt", b"PK"), "not as a dump of its own"),
    (lambda p: _file(p, "bad.npz", b"junk"), "not a readable npz"),
    (lambda p: _file(p, "d/dump.json", b"{nope").parent, "not valid"),
    (lambda p: _file(p, "d/index.json", b'{"entries": 3}').parent, "entries"),
    (lambda p: _file(p, "e/readme.txt", b"").parent, "not a dump"),
])
def test_unreadable_input_is_one_line_exit_2(run, tmp_path, setup, needle):
    path = setup(tmp_path)
    np.save(tmp_path / "ok.npy", np.ones(2))
    p = run("compare", path, tmp_path / "ok.npy")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and str(path) in lines[0]


def test_output_file_written_atomically_and_help_examples(run, tmp_path):
    np.save(tmp_path / "a.npy", np.ones(3))
    out = tmp_path / "r.json"
    assert run("compare", tmp_path / "a.npy", tmp_path / "a.npy", "--format", "json", "-o", out).returncode == 0
    assert json.loads(out.read_text())["summary"]["pass"] == 1
    h = run("compare", "--help").stdout
    assert "Examples:" in h and h.count("banjia compare ") >= 3
