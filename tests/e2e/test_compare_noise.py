"""compare's noise model on captures made here, on CPU with torch 2.x, of a small CNN stem plus
transformer: a bfloat16-autocast run against float32 is noise; the same with one planted bug names
the planted module as the suspect; thread counts are noise; NaN in the same places is equal; every
JSON is strict. The expected answers come from how the runs were made (which module was planted,
which runs differ only in precision), not from banjia's output."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
import banjia  # noqa: E402


class Block(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(d, eps=eps)
        self.fc1 = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


class StemTransformer(nn.Module):
    # stem.0 is a conv with a bias right before a BatchNorm: its bias gradient is zero in exact
    # arithmetic and rounding noise in practice.
    def __init__(self, d=64, depth=4, bad_eps_block=None):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.Conv2d(32, d, 4, stride=4))
        self.blocks = nn.ModuleList([Block(d, 0.1 if i == bad_eps_block else 1e-5) for i in range(depth)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x).mean(1))


def capture_run(out, *, amp=False, bad_eps_block=None, attn_scale_block=None, mode="tensors", threads=None,
                nan_input=False):
    saved_threads = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        torch.manual_seed(0)
        model = StemTransformer(bad_eps_block=bad_eps_block)
        if attn_scale_block is not None:  # a wrong output projection: attention output 14 % too small
            with torch.no_grad():
                model.blocks[attn_scale_block].attn.out_proj.weight.mul_(0.86)
                model.blocks[attn_scale_block].attn.out_proj.bias.mul_(0.86)
        x = torch.randn(8, 3, 32, 32)
        if nan_input:
            x[0, 0, 0, 0] = float("nan")
        y = torch.randint(0, 10, (8,))
        with banjia.capture(model, out, mode=mode):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
                loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
    finally:
        torch.set_num_threads(saved_threads)
    return out


def strict_json(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def compare(run, a, b, *extra):
    p = run("compare", a, b, "--format", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, strict_json(p.stdout)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("noise")
    made = {
        "fp32": capture_run(base / "fp32"),
        "bf16": capture_run(base / "bf16", amp=True),
        "bf16_bug": capture_run(base / "bf16_bug", amp=True, bad_eps_block=2),
        "fp32_t1": capture_run(base / "fp32_t1", threads=1),
        "fp32_t2": capture_run(base / "fp32_t2", threads=2),
        "stats_fp32": capture_run(base / "stats_fp32", mode="stats"),
        "stats_bf16": capture_run(base / "stats_bf16", mode="stats", amp=True),
        "stats_bf16_bug": capture_run(base / "stats_bf16_bug", mode="stats", amp=True, bad_eps_block=2),
        "stats_attn_bug": capture_run(base / "stats_attn_bug", mode="stats", amp=True, attn_scale_block=1),
    }
    return made


def test_bf16_autocast_with_a_planted_layernorm_bug_names_it_as_suspect(run, runs):
    rc, out = compare(run, runs["bf16_bug"], runs["fp32"])
    assert out["suspect"]["module"] == "blocks.2.ln2"
    assert out["suspect"]["phase"] == "forward"
    assert rc == 1
    # The planted module is the only forward failure: what follows it is explained by its error.
    failed = [e["module"] for e in out["entries"] if e["status"] == "fail" and e["phase"] == "forward"]
    assert failed == ["blocks.2.ln2"]


def test_the_same_bug_in_statistics_mode_is_the_suspect(run, runs):
    rc, out = compare(run, runs["stats_bf16_bug"], runs["stats_fp32"])
    assert rc == 1
    assert out["suspect"]["module"] == "blocks.2.ln2"


def test_a_14_percent_attention_error_in_statistics_mode_is_the_suspect(run, runs):
    rc, out = compare(run, runs["stats_attn_bug"], runs["stats_fp32"])
    assert rc == 1
    assert out["suspect"]["module"] == "blocks.1.attn"


@pytest.mark.parametrize("a,b", [("bf16", "fp32"), ("stats_bf16", "stats_fp32"), ("fp32_t1", "fp32_t2"),
                                 ("fp32_t2", "fp32_t1")])
def test_noise_only_pairs_pass(run, runs, a, b):
    rc, out = compare(run, runs[a], runs[b])
    assert rc == 0, [(e["key"], e["status"], e["message"]) for e in out["entries"] if e["status"] == "fail"]
    assert out["suspect"] is None
    assert out["summary"]["fail"] == 0 and out["summary"]["error"] == 0
    # Normalisation outputs have a mean near zero: in statistics mode that is no reason to flag them.
    for e in out["entries"]:
        if e["type"] == "LayerNorm" and e["phase"] == "forward":
            assert e["status"] == "pass", (e["key"], e["message"])


def test_conv_bias_gradient_before_batchnorm_is_near_zero_and_never_fails(run, runs):
    index = json.loads((runs["fp32"] / "index.json").read_text())
    z = np.load(runs["fp32"] / "tensors.npz")
    bias, weight = z["grad.stem.0.bias"], z["grad.stem.0.weight"]
    # zero in exact arithmetic: BatchNorm removes the per-channel mean the bias adds
    assert np.sqrt(np.mean(bias.astype(np.float64) ** 2)) < 1e-4 * np.sqrt(np.mean(weight.astype(np.float64) ** 2))
    assert any(e["key"] == "grad.stem.0.bias" for e in index["entries"])
    for a, b in [("bf16", "fp32"), ("fp32_t1", "fp32_t2"), ("bf16_bug", "fp32")]:
        _, out = compare(run, runs[a], runs[b])
        entry = next(e for e in out["entries"] if e["key"] == "grad.stem.0.bias")
        assert entry["noise"]["near_zero"] is True
        assert entry["status"] != "fail"


def test_parameter_gradients_are_ranked_apart_from_the_suspect(run, runs):
    _, out = compare(run, runs["bf16_bug"], runs["fp32"])
    ranking = out["gradient_ranking"]
    assert all(g["phase"] == "param_grad" for g in ranking)
    ratios = [g["ratio"] for g in ranking]
    assert ratios == sorted(ratios, reverse=True)
    assert out["suspect"]["phase"] == "forward"


def test_nan_in_the_same_places_is_equal(run, tmp_path):
    for mode in ("tensors", "stats"):
        a = capture_run(tmp_path / f"nan_{mode}", nan_input=True, mode=mode)
        index_text = (a / "index.json").read_text()
        index = strict_json(index_text)  # the capture's own index is strict JSON too
        assert any(e["stats"] and e["stats"]["nan"] > 0 for e in index["entries"])
        flagged = [e for e in index["entries"] if e["stats"] and "nonfinite" in e["stats"]]
        assert flagged and all(e["stats"][name] is None for e in flagged for name in e["stats"]["nonfinite"])
        rc, out = compare(run, a, a)
        assert rc == 0, [(e["key"], e["status"], e["message"]) for e in out["entries"] if e["status"] != "pass"]
        assert out["first_divergence"] is None
        assert {e["status"] for e in out["entries"]} <= {"pass", "skipped"}
        assert out["first_nonfinite"]["a"] is not None  # still located, as before


def test_h200_bf16amp_and_fp16_against_fp32_are_noise(run, fixtures):
    dumps = fixtures / "gpu-h200" / "dumps"
    for model in ("tinygpt", "resnet18"):
        for low in ("bf16amp", "fp16"):
            rc, out = compare(run, dumps / f"{model}_cuda_{low}", dumps / f"{model}_cuda_fp32")
            assert rc == 0, (model, low, [(e["key"], e["message"]) for e in out["entries"] if e["status"] == "fail"])
            assert out["suspect"] is None, (model, low, out["suspect"])


def test_h200_layernorm_epsilon_slip_is_the_suspect(run, fixtures):
    # PROVENANCE: *_bug_ln_eps has a wrong LayerNorm epsilon in blocks.1.ln2.
    dumps = fixtures / "gpu-h200" / "dumps"
    rc, out = compare(run, dumps / "tinygpt_cuda_fp32_bug_ln_eps", dumps / "tinygpt_cuda_fp32")
    assert rc == 1
    assert out["suspect"]["key"] == "0012.blocks.1.ln2.forward.output"
