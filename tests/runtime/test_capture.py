"""banjia.capture on CPU with Debian's torch: layout, stats, tensors, grads, filters, bf16, compare."""
import json
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import banjia  # noqa: E402


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.act = torch.nn.ReLU(inplace=True)
        self.block = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.LayerNorm(16))
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.block(self.act(self.fc1(x))))


def step(model, x):
    model.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss


def make(seed=0, dtype=torch.float32):
    torch.manual_seed(seed)
    return TinyNet().to(dtype), torch.randn(4, 8, dtype=dtype)


def index_of(path):
    return json.loads((path / "index.json").read_text())


def test_tensors_mode_layout_values_and_grads(tmp_path):
    model, x = make()
    with banjia.capture(model, tmp_path / "run", mode="tensors") as cap:
        step(model, x)
    idx = index_of(tmp_path / "run")
    assert idx["mode"] == "tensors" and idx["device"] == "cpu" and idx["torch"] == torch.__version__
    keys = [e["key"] for e in idx["entries"]]
    forward = [k for k in keys if ".forward." in k]
    # execution order, post-forward numbering, root module last and called "model"
    assert forward == ["0000.fc1.forward.output", "0001.act.forward.output", "0002.block.0.forward.output",
                       "0003.block.1.forward.output", "0004.block.forward.output", "0005.head.forward.output",
                       "0006.model.forward.output"]
    root = next(e for e in idx["entries"] if e["key"] == "0006.model.forward.output")
    assert root["module"] == "" and root["type"] == "TinyNet"
    z = np.load(tmp_path / "run" / "tensors.npz")
    assert set(z.files) == set(keys)
    # values: recompute the forward independently
    with torch.no_grad():
        h = torch.relu(model.fc1(x))
        np.testing.assert_allclose(z["0001.act.forward.output"], h.numpy(), rtol=1e-6)
        # fc1's output was modified in place by ReLU afterwards; the dump keeps the value at call time
        np.testing.assert_allclose(z["0000.fc1.forward.output"], model.fc1(x).numpy(), rtol=1e-6)
    for name, p in model.named_parameters():
        np.testing.assert_array_equal(z[f"grad.{name}"], p.grad.numpy())
    assert any(".backward.grad_output" in k for k in keys)
    for e in idx["entries"]:  # stats agree with the stored tensors
        a = z[e["key"]].astype(np.float64)
        assert e["stats"]["max"] == pytest.approx(a.max(), rel=1e-6)
        assert e["stats"]["mean"] == pytest.approx(a.mean(), rel=1e-5, abs=1e-7)
        assert e["stats"]["norm"] == pytest.approx(np.linalg.norm(a), rel=1e-5)
        assert e["stats"]["nan"] == 0 and e["stats"]["inf"] == 0
    assert cap is not None


def test_every_layer_matches_a_direct_computation(tmp_path):
    """Each dumped forward output and output gradient equals the same layer computed by hand from the
    model's weights with torch.nn.functional (no hooks, no banjia)."""
    import torch.nn.functional as F

    model, x = make(seed=3)
    with banjia.capture(model, tmp_path / "d", mode="tensors"):
        step(model, x)
    z = np.load(tmp_path / "d" / "tensors.npz")
    keys = {k.split(".", 1)[1]: k for k in z.files if ".forward." in k or ".backward." in k}
    with torch.no_grad():
        fc1 = F.linear(x, model.fc1.weight, model.fc1.bias)
        act = fc1.clamp_min(0)
        b0 = F.linear(act, model.block[0].weight, model.block[0].bias)
        b1 = F.layer_norm(b0, (16,), model.block[1].weight, model.block[1].bias, model.block[1].eps)
        head = F.linear(b1, model.head.weight, model.head.bias)
    expect = {"fc1": fc1, "act": act, "block.0": b0, "block.1": b1, "block": b1, "head": head, "model": head}
    for name, value in expect.items():
        np.testing.assert_allclose(z[keys[f"{name}.forward.output"]], value.numpy(), rtol=1e-5, atol=1e-6)
    # loss = mean(out ** 2): d loss / d out = 2 * out / out.numel()
    grad_out = (2 * head / head.numel()).numpy()
    np.testing.assert_allclose(z[keys["head.backward.grad_output"]], grad_out, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(z[keys["model.backward.grad_output"]], grad_out, rtol=1e-5, atol=1e-8)
    # the head's weight gradient: grad_out^T @ input of the head
    np.testing.assert_allclose(z["grad.head.weight"], grad_out.T @ b1.numpy(), rtol=1e-4, atol=1e-7)


def test_complex_outputs_have_statistics_of_both_parts(tmp_path):
    class Spectrum(torch.nn.Module):
        def forward(self, x):
            return torch.fft.fft(x)

    model = Spectrum()
    x = torch.tensor([1.0, -2.0, 0.5, 3.0])
    with banjia.capture(model, tmp_path / "c", mode="stats", grads=False):
        out = model(x)
    st = index_of(tmp_path / "c")["entries"][0]["stats"]
    parts = np.concatenate([out.real.numpy(), out.imag.numpy()]).astype(np.float64)
    assert st["max"] == pytest.approx(parts.max(), rel=1e-6) and st["min"] == pytest.approx(parts.min(), rel=1e-6)
    assert st["norm"] == pytest.approx(np.sqrt((np.abs(out.numpy().astype(np.complex128)) ** 2).sum()), rel=1e-6)
    assert st["mean"] == pytest.approx(parts.mean(), rel=1e-5, abs=1e-7)
    with banjia.capture(model, tmp_path / "n", mode="stats", grads=False):
        model(torch.tensor([1.0, float("nan"), float("inf"), 2.0]))
    st = index_of(tmp_path / "n")["entries"][0]["stats"]
    out = np.fft.fft(np.array([1.0, np.nan, np.inf, 2.0]))
    assert (st["nan"], st["inf"]) == (int(np.isnan(out).sum()), int(np.isinf(out).sum()))


def test_stats_mode_copies_only_the_numbers(tmp_path, monkeypatch):
    model, x = make()
    calls = {"numpy": 0, "tolist": 0}
    real_numpy, real_tolist = torch.Tensor.numpy, torch.Tensor.tolist

    def counting(name, real):
        def f(self, *a, **k):
            calls[name] += 1
            return real(self, *a, **k)
        return f

    monkeypatch.setattr(torch.Tensor, "numpy", counting("numpy", real_numpy))
    monkeypatch.setattr(torch.Tensor, "tolist", counting("tolist", real_tolist))
    with banjia.capture(model, tmp_path / "s", mode="stats"):
        step(model, x)
    monkeypatch.undo()
    assert calls == {"numpy": 0, "tolist": 1}  # one transfer of the stacked statistics
    assert not (tmp_path / "s" / "tensors.npz").exists()
    idx = index_of(tmp_path / "s")
    e = next(e for e in idx["entries"] if e["key"] == "0005.head.forward.output")
    with torch.no_grad():
        out = model(x).double().numpy()
    assert e["stats"]["max"] == pytest.approx(out.max(), rel=1e-6)
    assert e["stats"]["min"] == pytest.approx(out.min(), rel=1e-6)


def test_nan_and_inf_counted(tmp_path):
    model = torch.nn.Sequential(torch.nn.Identity())
    x = torch.tensor([1.0, float("nan"), float("inf"), float("-inf")])
    with banjia.capture(model, tmp_path / "n", mode="stats", grads=False):
        model(x)
    st = index_of(tmp_path / "n")["entries"][0]["stats"]
    assert st["nan"] == 1 and st["inf"] == 2


def test_modules_filter_and_no_grads(tmp_path):
    model, x = make()
    with banjia.capture(model, tmp_path / "f", mode="stats", grads=False, modules=["block"]):
        step(model, x)
    keys = [e["key"] for e in index_of(tmp_path / "f")["entries"]]
    assert keys == ["0000.block.0.forward.output", "0001.block.1.forward.output", "0002.block.forward.output"]


def test_bf16_stored_as_float32_with_original_dtype(tmp_path):
    model, x = make(dtype=torch.bfloat16)
    with banjia.capture(model, tmp_path / "b", mode="tensors", grads=False):
        with torch.no_grad():
            model(x)
    idx = index_of(tmp_path / "b")
    z = np.load(tmp_path / "b" / "tensors.npz")
    assert idx["dtype"] == "bfloat16"
    for e in idx["entries"]:
        assert e["dtype"] == "bfloat16"
        assert z[e["key"]].dtype == np.float32


def test_inputs_recorded_on_request(tmp_path):
    model, x = make()
    with banjia.capture(model, tmp_path / "i", mode="tensors", grads=False, inputs=True, modules=["fc1"]):
        with torch.no_grad():
            model(x)
    z = np.load(tmp_path / "i" / "tensors.npz")
    np.testing.assert_array_equal(z["0000.fc1.forward.input.0"], x.numpy())


def test_capture_then_compare(tmp_path, banjia_bin):
    """Two CPU runs of the same model compare clean; a perturbed layer is found; stats vs tensors works."""
    for name, mode in (("a", "tensors"), ("b", "tensors"), ("s", "stats")):
        model, x = make()
        if name == "b":
            with torch.no_grad():
                model.block[0].weight[0, 0] += 0.5
        with banjia.capture(model, tmp_path / name, mode=mode):
            step(model, x)
    same = subprocess.run([banjia_bin, "compare", tmp_path / "a", tmp_path / "s", "--format", "json"],
                          capture_output=True, text=True)
    assert same.returncode == 0, same.stdout + same.stderr
    diff = subprocess.run([banjia_bin, "compare", tmp_path / "b", tmp_path / "a", "--format", "json"],
                          capture_output=True, text=True)
    out = json.loads(diff.stdout)
    assert out["first_divergence"]["key"] == "0002.block.0.forward.output"


def test_h200_dumps_have_the_capture_layout(fixtures):
    """The fixture dumps and capture's output share keys, fields and storage (compare reads both)."""
    idx = json.loads((fixtures / "gpu-h200/dumps/tinygpt_cuda_bf16amp/index.json").read_text())
    for field in ("key", "module", "type", "dtype", "shape"):
        assert field in idx["entries"][0]
    z = np.load(fixtures / "gpu-h200/dumps/tinygpt_cuda_bf16amp/tensors.npz")
    bf16 = [e for e in idx["entries"] if e["dtype"] == "bfloat16"]
    assert bf16 and all(z[e["key"]].dtype == np.float32 for e in bf16)


def test_bad_mode_rejected(tmp_path):
    model, _ = make()
    with pytest.raises(ValueError):
        banjia.capture(model, tmp_path, mode="everything")
