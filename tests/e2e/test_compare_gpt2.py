"""compare on a tiny Hugging Face transformers GPT-2 (random init) captured here: bugs planted as a
new user would (a LayerNorm epsilon 3x too large, a backward-only gradient scaled by 1.1, shifted
positions, a doubled residual, an attention scale of 1) fail, in bfloat16 autocast against float32,
in both capture modes, and are named at the module they were planted in (gpt2_cases.PLANTED);
noise-only pairs pass. A stats capture's count sketches give the errors a tensor capture measures.
Expected modules come from where a bug was planted and expected numbers from numpy over the dumps,
never from banjia's output."""
import json

import numpy as np
import pytest

pytest.importorskip("torch")
gpt2 = pytest.importorskip("gpt2_cases")

MODES = ("tensors", "stats")
BUGS = ("ln_eps_subtle", "grad_scale", "positions_shifted", "residual_doubled", "attn_scale")


def compare(run, a, b, *extra):
    p = run("compare", a, b, "--format", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    base = tmp_path_factory.mktemp("gpt2")
    made = {}
    for mode in MODES:
        made["fp32", mode] = gpt2.capture_gpt2(base / f"fp32_{mode}", mode=mode)
        made["bf16", mode] = gpt2.capture_gpt2(base / f"bf16_{mode}", mode=mode, precision="bfloat16")
        for bug in BUGS:
            made[bug, mode] = gpt2.capture_gpt2(base / f"{bug}_{mode}", mode=mode, precision="bfloat16", bug=bug)
    made["split_k", "tensors"] = gpt2.capture_gpt2(base / "split_k", summation="split_k")
    # With inputs recorded, every block also records its causal mask (filled with finfo.min).
    for name, kw in (("fp32", {}), ("bf16", {"precision": "bfloat16"}),
                     ("residual_doubled", {"precision": "bfloat16", "bug": "residual_doubled"})):
        made[name, "inputs"] = gpt2.capture_gpt2(base / f"{name}_inputs", mode="stats", inputs=True, **kw)
    return made


def in_subtree(module, root):
    return module == root or module.startswith(root + ".")


@pytest.mark.parametrize("low,mode", [("bf16", "tensors"), ("bf16", "stats"), ("split_k", "tensors")])
def test_noise_only_pairs_pass(run, dumps, low, mode):
    rc, out = compare(run, dumps[low, mode], dumps["fp32", mode])
    assert rc == 0, [(e["key"], e["message"]) for e in out["entries"] if e["status"] == "fail"]
    assert out["suspect"] is None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bug", BUGS)
def test_planted_bug_fails_at_the_module_it_was_planted_in(run, dumps, bug, mode):
    rc, out = compare(run, dumps[bug, mode], dumps["fp32", mode])
    assert rc == 1
    planted = gpt2.PLANTED[bug]
    assert in_subtree(out["suspect"]["module"], planted), (planted, out["suspect"])
    assert out["suspect"]["status"] == "fail"


@pytest.mark.parametrize("mode", MODES)
def test_a_backward_only_bug_is_pinned_on_its_module_by_its_own_input_gradient(run, dumps, mode):
    planted = gpt2.PLANTED["grad_scale"]
    rc, out = compare(run, dumps["grad_scale", mode], dumps["fp32", mode])
    suspect = out["suspect"]
    assert suspect["module"] == planted and suspect["phase"] == "backward"
    assert ".backward.grad_input." in suspect["key"]
    by_key = {e["key"]: e for e in out["entries"]}
    # Its output gradient agrees (the bug acts inside its backward): it passes.
    own_output_grads = [e for e in out["entries"] if e["module"] == planted and ".backward.grad_output" in e["key"]]
    assert own_output_grads and all(e["status"] == "pass" for e in own_output_grads)
    # Judged against its own inputs' error in both modes (stats: estimated from the sketches).
    assert by_key[suspect["key"]]["noise"]["own_inputs"]
    assert by_key[suspect["key"]]["noise"]["sketched"] == (mode == "stats")


@pytest.mark.parametrize("mode", MODES)
def test_a_wrong_weight_gradient_heads_the_gradient_ranking(run, dumps, mode):
    planted = gpt2.PLANTED["grad_scale"]
    _, out = compare(run, dumps["grad_scale", mode], dumps["fp32", mode])
    ranking = out["gradient_ranking"]
    assert ranking and ranking[0]["module"] == planted
    # Independently: the planted module's weight gradient is 10 % off (the bug scales it by 1.1).
    za = np.load(dumps["grad_scale", "tensors"] / "tensors.npz")
    zb = np.load(dumps["fp32", "tensors"] / "tensors.npz")
    key = f"grad.{planted}.weight"
    rel = np.linalg.norm(za[key] - zb[key]) / np.linalg.norm(zb[key])
    assert rel == pytest.approx(0.1, rel=0.05)
    assert {e["key"] for e in ranking[:2]} == {key, f"grad.{planted}.bias"}


def test_float32_embedding_under_autocast_keeps_the_float32_floor(run, dumps):
    index = json.loads((dumps["positions_shifted", "stats"] / "index.json").read_text())
    wpe = next(e for e in index["entries"] if e["module"] == "transformer.wpe" and e["kind"] == "forward.output")
    assert wpe["dtype"] == "float32" and wpe["autocast"] == "bfloat16" and wpe["computes_in_output_dtype"]
    # transformers' own Conv1D is not a torch.nn module: its output dtype is not vouched for.
    conv1d = [e for e in index["entries"] if e["type"] == "Conv1D" and e["kind"] == "forward.output"]
    assert conv1d and not any(e["computes_in_output_dtype"] for e in conv1d)
    _, out = compare(run, dumps["positions_shifted", "stats"], dumps["fp32", "stats"])
    entry = next(e for e in out["entries"] if e["key"] == wpe["key"])
    assert entry["noise"]["unit_roundoff"] == pytest.approx(np.finfo(np.float32).eps / 2)
    # The same entry in the noise pair is exact: an Embedding does no arithmetic.
    _, noise = compare(run, dumps["bf16", "stats"], dumps["fp32", "stats"])
    assert next(e for e in noise["entries"] if e["key"] == wpe["key"])["noise"]["error"] == 0


def test_masks_set_no_scale_and_are_passed_over_by_the_first_nonfinite_report(run, dumps):
    index = json.loads((dumps["bf16", "inputs"] / "index.json").read_text())
    lowest = float(np.finfo(np.float32).min)
    masks = {e["key"] for e in index["entries"] if e["stats"] and e["stats"]["min"] == lowest}
    assert masks  # the causal masks, filled with finfo(float32).min
    rc, out = compare(run, dumps["bf16", "inputs"], dumps["fp32", "inputs"])
    assert rc == 0 and out["suspect"] is None
    assert {e["key"] for e in out["entries"] if e["mask_or_index"] and e["dtype_a"] != "int64"} == masks
    # Their norm overflows float32 (inf) in the statistics, yet they are no overflow origin.
    assert out["first_nonfinite"]["a"] is None
    assert out["first_nonfinite"]["masks_skipped"]["a"] == len(masks)
    text = run("compare", dumps["bf16", "inputs"], dumps["fp32", "inputs"]).stdout
    assert f"{len(masks)} mask entries" in text
    # A doubled residual right after a mask input still fails at its block.
    rc, out = compare(run, dumps["residual_doubled", "inputs"], dumps["fp32", "inputs"])
    assert rc == 1 and in_subtree(out["suspect"]["module"], gpt2.PLANTED["residual_doubled"])


def test_largest_error_jump_is_a_real_jump_with_its_baseline(run, dumps):
    a, b = dumps["ln_eps_subtle", "tensors"], dumps["fp32", "tensors"]
    _, out = compare(run, a, b)
    za, zb = np.load(a / "tensors.npz"), np.load(b / "tensors.npz")
    keys = [e["key"] for e in json.loads((a / "index.json").read_text())["entries"]]
    rel = [float(np.linalg.norm(za[k] - zb[k]) / np.linalg.norm(zb[k])) for k in keys]
    planted = next(i for i, k in enumerate(keys) if k.endswith(gpt2.PLANTED["ln_eps_subtle"] + ".forward.output"))
    jump = out["largest_error_jump"]
    assert jump["key"] == keys[planted]
    assert jump["baseline_rel_l2_err"] == pytest.approx(max(rel[:planted]), rel=1e-6)
    assert jump["factor"] == pytest.approx(rel[planted] / max(rel[:planted]), rel=1e-6) and jump["factor"] > 2


def test_no_jump_is_reported_when_the_bug_is_the_first_difference(run, dumps, tmp_path):
    # In float32 the planted LayerNorm is where the two runs first differ at all: no baseline.
    a = gpt2.capture_gpt2(tmp_path / "fp32_bug", bug="ln_eps")
    _, out = compare(run, a, dumps["fp32", "tensors"])
    assert out["largest_error_jump"] is None
    first = out["error_growth"]["first_nonzero"]["key"]
    assert first.endswith(gpt2.PLANTED["ln_eps"] + ".forward.output")
    text = run("compare", a, dumps["fp32", "tensors"]).stdout
    assert f"largest error jump: none above 2x (the error first appears at {first})" in text


@pytest.mark.parametrize("bug", ["attn_scale", "grad_scale"])
def test_stats_mode_estimates_the_errors_the_tensors_measure(run, dumps, bug):
    # The same runs captured twice: the stats captures' errors (from their count sketches) against
    # the relative errors numpy computes from the tensor captures of the same runs.
    za = np.load(dumps[bug, "tensors"] / "tensors.npz")
    zb = np.load(dumps["fp32", "tensors"] / "tensors.npz")
    _, out = compare(run, dumps[bug, "stats"], dumps["fp32", "stats"])
    checked = 0
    for e in out["entries"]:
        n = e["noise"]
        if not n or n["near_zero"] or e["mask_or_index"]:
            continue
        assert n["sketched"], e["key"]
        rel = float(np.linalg.norm(za[e["key"]].astype(np.float64) - zb[e["key"]]) / np.linalg.norm(zb[e["key"]]))
        if rel > 1e-3:  # above float32 noise between two captures of one run
            assert n["error"] == pytest.approx(rel, rel=0.4), e["key"]
            checked += 1
    assert checked > 50
