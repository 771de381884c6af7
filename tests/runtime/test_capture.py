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
    assert calls == {"numpy": 0, "tolist": 2}  # one transfer of the stacked statistics, one of the sketches
    assert not (tmp_path / "s" / "tensors.npz").exists()
    idx = index_of(tmp_path / "s")
    e = next(e for e in idx["entries"] if e["key"] == "0005.head.forward.output")
    with torch.no_grad():
        out = model(x).double().numpy()
    assert e["stats"]["max"] == pytest.approx(out.max(), rel=1e-6)
    assert e["stats"]["min"] == pytest.approx(out.min(), rel=1e-6)


def spec_sketch(values, scheme):
    """The count sketch of python/banjia/_sketch.py's definition, with Python's integers."""
    p, k = scheme["prime"], scheme["buckets"]
    out = [0.0] * k
    for i, v in enumerate(values):
        h = (scheme["a"] * i * i + scheme["b"] * i + scheme["c"]) % p
        out[h % k] += v if (h // k) % 2 == 0 else -v
    return out


def test_stats_mode_records_the_count_sketch_its_index_names(tmp_path):
    model, x = make()
    with banjia.capture(model, tmp_path / "s", mode="stats"):
        step(model, x)
    idx = index_of(tmp_path / "s")
    assert idx["sketch"]["kind"] == "count-sketch" and idx["sketch"]["order"] == "row-major"
    e = next(e for e in idx["entries"] if e["key"] == "0005.head.forward.output")
    with torch.no_grad():
        out = model(x).double().numpy()
    assert e["stats"]["sketch"] == pytest.approx(spec_sketch(out.ravel().tolist(), idx["sketch"]), rel=1e-9, abs=1e-12)
    assert all(len(e["stats"]["sketch"]) == idx["sketch"]["buckets"] for e in idx["entries"])
    # not asked for, or in tensors mode: none
    with banjia.capture(model, tmp_path / "n", mode="stats", sketch=False):
        step(model, x)
    assert "sketch" not in index_of(tmp_path / "n")
    assert all("sketch" not in e["stats"] for e in index_of(tmp_path / "n")["entries"])


def test_a_tensor_of_several_chunks_is_sketched_as_one(monkeypatch):
    from banjia import _sketch

    monkeypatch.setattr(_sketch, "CHUNK", 1000)
    monkeypatch.setattr(_sketch, "_FIRST_CHUNK", {})
    x = torch.randn(3500, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    assert _sketch.device_sketch(x).tolist() == pytest.approx(spec_sketch(x.tolist(), _sketch.SCHEME), rel=1e-12)


@pytest.mark.parametrize("pattern", ["uniform", "one_column", "one_row", "every_64th", "one_element"])
def test_the_sketch_estimates_the_norm_of_a_difference_whatever_its_layout(pattern):
    from banjia import _sketch

    g = torch.Generator().manual_seed(3)
    a = torch.randn(256, 192, generator=g, dtype=torch.float64)
    d = torch.zeros_like(a)
    noise = torch.randn(256, 192, generator=g, dtype=torch.float64)
    if pattern == "uniform":
        d = noise
    elif pattern == "one_column":
        d[:, 5] = noise[:, 5]
    elif pattern == "one_row":
        d[7] = noise[7]
    elif pattern == "every_64th":
        d.view(-1)[::64] = noise.view(-1)[::64]
    else:
        d[3, 4] = 2.5
    b = a + d
    estimate = torch.linalg.vector_norm(_sketch.device_sketch(b.view(-1)) - _sketch.device_sketch(a.view(-1)))
    # the relative standard deviation of the estimate is about sqrt(1/128) = 9 %: 4 of them
    assert float(estimate) == pytest.approx(float(torch.linalg.vector_norm(d)), rel=0.36)


def test_the_squared_sketch_norm_is_unbiased():
    from banjia import _sketch

    g = torch.Generator().manual_seed(5)
    ratios = []
    for _ in range(400):
        d = torch.randn(int(torch.randint(100, 5000, (1,), generator=g)), generator=g, dtype=torch.float64)
        ratios.append(float(_sketch.device_sketch(d).square().sum() / d.square().sum()))
    # each ratio has a standard deviation of about sqrt(2/64) = 0.18; their mean, 0.009
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.04)


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
    # compare sketches the tensors under the stats capture's scheme: the same run, no error beyond the
    # rounding of the float32 norms and means the stats capture computed
    scored = [e["noise"] for e in json.loads(same.stdout)["entries"] if e["noise"]]
    assert scored and all(n["sketched"] and n["error"] < 1e-6 for n in scored)
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


def test_sketches_of_different_schemes_are_never_compared(tmp_path, banjia_bin):
    for name in ("a", "b"):
        model, x = make()
        with banjia.capture(model, tmp_path / name, mode="stats"):
            step(model, x)
    index = index_of(tmp_path / "b")
    index["sketch"]["c"] = (index["sketch"]["c"] + 1) % index["sketch"]["prime"]
    (tmp_path / "b" / "index.json").write_text(json.dumps(index))

    def sketched(b):
        out = subprocess.run([banjia_bin, "compare", tmp_path / "a", b, "--format", "json"], capture_output=True, text=True)
        return [e["noise"]["sketched"] for e in json.loads(out.stdout)["entries"] if e["noise"]]

    assert sketched(tmp_path / "b") and not any(sketched(tmp_path / "b"))
    (tmp_path / "b" / "index.json").write_text(json.dumps({**index, "sketch": index_of(tmp_path / "a")["sketch"]}))
    assert all(sketched(tmp_path / "b"))
