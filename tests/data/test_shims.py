"""The shim modules of data/shims and the rules that redirect imports to them agree: each
`redirect-import` rule names a shim that exists, the names its `provides` table lists are exactly the
shim's `__all__`, and each of those is defined at the shim's top level (read with Python's ast, not
imported: a shim may need torch). A name the rule promises and the shim lacks would be an ImportError
in a migrated program; a name the shim has and the rule omits stays manual work for nothing."""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHIMS = REPO / "data" / "shims"


def redirect_rules() -> list[dict]:
    found = []
    for path in sorted((REPO / "data" / "rules").glob("*.toml")):
        for rule in tomllib.loads(path.read_text(encoding="utf-8")).get("rule", []):
            if rule.get("rewrite", {}).get("kind") == "redirect-import":
                found.append(rule)
    return found


def declared_all(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list) and all(isinstance(n, str) for n in value)
            return value
    raise AssertionError("no __all__ = [...] at the top level")


def top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name.split(".")[0] for a in node.names}
    return names


def test_three_libraries_have_shims() -> None:
    assert sorted(r["rewrite"]["to"] for r in redirect_rules()) == ["apex_amp_npu", "apex_npu", "flash_attn_npu",
                                                                     "xformers_npu"]
    assert sorted(p.name for p in SHIMS.glob("*.py")) == ["apex_amp_npu.py", "apex_npu.py", "flash_attn_npu.py",
                                                          "xformers_npu.py"]


@pytest.mark.parametrize("rule", redirect_rules(), ids=lambda r: r["id"])
def test_provided_names_are_the_shims_all(rule: dict) -> None:
    shim = rule["rewrite"]["to"]
    tree = ast.parse((SHIMS / f"{shim}.py").read_text(encoding="utf-8"))
    exported = declared_all(tree)
    assert len(exported) == len(set(exported)), f"{shim}.__all__ repeats a name"
    provided = {name for names in rule["match"]["provides"].values() for name in names}
    assert provided == set(exported)
    assert set(exported) <= top_level_names(tree)
    # every target's form redirects to the same shim
    for name, form in rule.get("target", {}).items():
        assert form["rewrite"] == rule["rewrite"], name


def test_the_task_lists_each_module_s_names() -> None:
    # The public names of each library module that the shims stand in for, from the libraries' sources
    # (data/rules/kernels_shims.toml cites them), spelled out here independently of the TOML.
    expected = {
        "flash-attn-shim": {
            "flash_attn.bert_padding": {"pad_input", "unpad_input", "index_first_axis", "rearrange", "repeat"},
            "flash_attn.modules.mha": {"flash_attn_qkvpacked_func", "flash_attn_kvpacked_func",
                                       "flash_attn_varlen_qkvpacked_func", "flash_attn_varlen_kvpacked_func",
                                       "flash_attn_with_kvcache"},
            "flash_attn.ops.triton.cross_entropy": {"cross_entropy_loss"},
            "flash_attn.ops.activations": {"swiglu"},
            "flash_attn.layers.rotary": {"apply_rotary_emb", "RotaryEmbedding"},
            "flash_attn.ops.rms_norm": {"rms_norm", "RMSNorm"},
            "flash_attn.ops.triton.layer_norm": {"rms_norm_fn", "RMSNorm", "layer_norm_fn"},
            "flash_attn.losses.cross_entropy": {"CrossEntropyLoss"},
        },
        "xformers-shim": {
            "xformers.ops": {"memory_efficient_attention", "SwiGLU", "LowerTriangularMask", "AttentionBias", "fmha"},
            "xformers.ops.fmha": {"memory_efficient_attention", "AttentionBias", "LowerTriangularMask",
                                  "BlockDiagonalMask"},
        },
        "apex-shim": {"apex.optimizers": {"FusedAdam", "FusedLAMB", "FusedSGD"},
                      "apex.contrib.layer_norm": {"FastLayerNorm"},
                      "apex.contrib.layer_norm.layer_norm": {"FastLayerNorm", "FastLayerNormFN"}},
        "apex-amp-shim": {"apex": {"amp"},
                          "apex.amp": {"initialize", "scale_loss", "master_params", "state_dict", "load_state_dict"}},
    }
    by_id = {r["id"]: r["match"]["provides"] for r in redirect_rules()}
    for rule, modules in expected.items():
        for module, names in modules.items():
            assert set(by_id[rule][module]) == names, (rule, module)
