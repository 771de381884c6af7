"""msprobe tensor-mode dumps whose data files are torch.save .pt files (what msprobe writes on real
NPU runs): banjia reads them without unpickling, falls back to dump.json's statistics where a data
file is missing, refuses a pickle that names anything but tensors (never running it), and takes a
run directory of step/rank/proc folders, pairing ranks. The dumps are written here in msprobe's
layout (dump.json, dump_tensor_data/<name>.pt); expected numbers come from numpy."""
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def tensors(scale=1.0):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(4, 8, generator=gen)
    w = torch.randn(8, 8, generator=gen)
    return {
        "Functional.linear.0.forward.input.0": x,
        "Functional.linear.0.forward.output.0": (x @ w.t()) * scale,
        "Tensor.t.0.forward.output.0": w.t(),  # a strided view of a larger storage order
        "Tensor.narrow.0.forward.output.0": w[:, 2:5],  # offset and strides inside its storage
        "Functional.gelu.0.forward.output.0": torch.nn.functional.gelu(x).to(torch.bfloat16),
        "Functional.softmax.0.forward.output.0": torch.softmax(x, -1).half(),
    }


def write_msprobe(d, made, missing=(), suffix=".pt"):
    """msprobe's tensor-task layout: dump.json (statistics and data_name per tensor) and the data files."""
    os.makedirs(d / "dump_tensor_data", exist_ok=True)
    data = {}
    for key, t in made.items():
        call, _, rest = key.partition(".forward.")
        group = rest.partition(".")[0]
        name = key + suffix
        if key not in missing:
            if suffix == ".pt":
                torch.save(t, d / "dump_tensor_data" / name)
            else:
                np.save(d / "dump_tensor_data" / name, t.float().numpy())
        f = t.float()
        data.setdefault(call + ".forward", {}).setdefault(group, []).append(
            {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape), "Max": f.max().item(),
             "Min": f.min().item(), "Mean": f.mean().item(), "Norm": f.norm().item(), "requires_grad": False,
             "data_name": name})
    (d / "dump.json").write_text(json.dumps({"task": "tensor", "level": "L1", "framework": "pytorch",
                                             "dump_data_dir": None, "data": data}))
    return d


def compare(run, a, b):
    p = run("compare", a, b, "--format", "json")
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def test_pt_data_files_read_as_the_same_values_numpy_sees(run, tmp_path):
    made = tensors()
    pt = write_msprobe(tmp_path / "pt", made)
    npy = write_msprobe(tmp_path / "npy", made, suffix=".npy")
    rc, out = compare(run, pt, npy)
    assert rc == 0
    assert {e["key"] for e in out["entries"]} == set(made)
    for e in out["entries"]:
        assert e["mode"] == "tensor" and e["status"] == "pass", e
        assert e["max_abs_err"] == 0, e["key"]
        assert e["dtype_a"] == str(made[e["key"]].dtype).replace("torch.", "")


def test_a_scaled_output_fails_and_a_missing_pt_falls_back_to_statistics(run, tmp_path):
    ref = tensors()
    bug = tensors(scale=1.1)
    a = write_msprobe(tmp_path / "bug", bug, missing={"Functional.gelu.0.forward.output.0"})
    b = write_msprobe(tmp_path / "ref", ref)
    rc, out = compare(run, a, b)
    assert rc == 1
    by_key = {e["key"]: e for e in out["entries"]}
    k = "Functional.linear.0.forward.output.0"
    expected = float(np.linalg.norm(bug[k] - ref[k]) / np.linalg.norm(ref[k]))
    assert by_key[k]["rel_l2_err"] == pytest.approx(expected, rel=1e-6)
    assert out["suspect"]["key"] == k
    gelu = by_key["Functional.gelu.0.forward.output.0"]
    assert gelu["mode"] == "statistics" and gelu["status"] == "pass"


def test_a_pickle_naming_other_code_is_refused_and_never_run(run, tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    made = tensors()
    a = write_msprobe(tmp_path / "a", made)
    torch.save(Payload(), a / "dump_tensor_data" / "Functional.linear.0.forward.input.0.pt")
    b = write_msprobe(tmp_path / "b", made)
    rc, out = compare(run, a, b)
    entry = next(e for e in out["entries"] if e["key"] == "Functional.linear.0.forward.input.0")
    assert entry["status"] == "error"
    assert "refuses global" in entry["message"] and "system" in entry["message"]
    assert not marker.exists()
    assert rc == 1


def test_a_run_directory_pairs_steps_and_ranks_across_process_folders(run, tmp_path):
    # msprobe writes step<N>/rank<R>/ per rank, or step<N>/proc<pid>/ without a rank: pids differ by run.
    for run_name, pid, scale in (("a", 111, 1.0), ("b", 222, 1.0)):
        for rank in (0, 1):
            write_msprobe(tmp_path / run_name / "step0" / f"rank{rank}", tensors(scale))
        write_msprobe(tmp_path / f"{run_name}_proc" / "step0" / f"proc{pid}", tensors(scale))
    rc, out = compare(run, tmp_path / "a", tmp_path / "b")
    assert rc == 0
    keys = {e["key"] for e in out["entries"]}
    assert keys == {f"step0.rank{r}.{k}" for r in (0, 1) for k in tensors()}
    assert out["summary"]["unmatched_a"] == out["summary"]["unmatched_b"] == 0
    rc, out = compare(run, tmp_path / "a_proc", tmp_path / "b_proc")
    assert rc == 0 and out["summary"]["compared"] == len(tensors())


def test_real_msprobe_dumps_noise_passes_and_the_planted_layernorm_fails(run, fixtures):
    # PROVENANCE: msprobe/pt_l1 made by the real mindstudio-probe; bug_ln_eps has LayerNorm eps 0.5.
    dumps = fixtures / "msprobe" / "pt_l1"
    rc, out = compare(run, dumps / "bf16", dumps / "fp32")
    assert rc == 0 and out["suspect"] is None
    assert all(e["mode"] == "tensor" for e in out["entries"])
    rc, out = compare(run, dumps / "bug_ln_eps", dumps / "fp32")
    assert rc == 1
    assert out["suspect"]["key"] == "Functional.layer_norm.0.forward.output.0"


def test_real_msprobe_pt_values_are_what_torch_load_reads(run, fixtures):
    dumps = fixtures / "msprobe" / "pt_l1"
    key = "Functional.layer_norm.0.forward.output.0"
    _, out = compare(run, dumps / "bug_ln_eps", dumps / "fp32")
    entry = next(e for e in out["entries"] if e["key"] == key)
    a = torch.load(next((dumps / "bug_ln_eps").glob(f"step0/proc*/dump_tensor_data/{key}.pt")), weights_only=True)
    b = torch.load(next((dumps / "fp32").glob(f"step0/proc*/dump_tensor_data/{key}.pt")), weights_only=True)
    a, b = a.double().numpy(), b.double().numpy()
    assert entry["rel_l2_err"] == pytest.approx(np.linalg.norm(a - b) / np.linalg.norm(b), rel=1e-9)
    assert entry["max_abs_err"] == pytest.approx(np.abs(a - b).max(), rel=1e-9)
