"""data/ops and data/api (written by tools/extract_npu_facts.py from torch_npu's sources): every table
cites its source, the facts hold what the source pages and tables say, and the extractor's pieces
(the YAML subset, op-plugin's version specs, the ast reading of modules) behave as documented."""
from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import extract_npu_facts as extract  # noqa: E402
import npu_facts_api as api  # noqa: E402
import npu_facts_common as common  # noqa: E402
import npu_facts_ops as ops  # noqa: E402

COMMIT = re.compile(r"@ [0-9a-f]{40}\b")
OPS_FILES = sorted((REPO / "data" / "ops").glob("*.toml"))
API_FILES = sorted((REPO / "data" / "api").glob("*.toml"))


def load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def test_the_expected_files_are_there() -> None:
    assert [p.name for p in OPS_FILES] == ["torch_npu-master.toml", "torch_npu-v2.1.0.toml"]
    assert [p.name for p in API_FILES] == ["torch-2.13.toml", "torch_npu-26.1.0-pytorch2.12.0.toml",
                                           "torch_npu-26.2.0-beta.1-pytorch2.13.0.toml",
                                           "torch_npu-7.2.0.1-pytorch2.1.0.toml"]


@pytest.mark.parametrize("path", OPS_FILES + API_FILES, ids=lambda p: p.name)
def test_every_table_cites_its_source(path: Path) -> None:
    doc = load(path)
    tables = [(k, v) for k, v in doc.items() if k != "module"] + list(doc.get("module", {}).items())
    assert tables
    for name, table in tables:
        assert isinstance(table.get("source"), str) and table["source"], f"{path.name} [{name}] has no source"
        if not path.name.startswith("torch-"):  # torch's sources are the installed package, by version
            assert COMMIT.search(table["source"]) or name == "ops", f"{path.name} [{name}]: no commit"


def test_ops_of_the_2_1_branch() -> None:
    doc = load(REPO / "data" / "ops" / "torch_npu-v2.1.0.toml")
    assert doc["meta"]["torch_line"] == "v2.1"
    kernels = {n for k in ("op_api", "acl_op", "op_api_and_acl_op", "sparse_only", "autograd") for n in doc["aten"][k]}
    assert {"add.Tensor", "mm", "convolution", "_softmax", "native_layer_norm"} <= kernels
    assert "_local_scalar_dense" in doc["native"]["supported"]
    assert doc["fallback"]["unlisted_dense_ops_run_on_cpu"] is True
    assert doc["fallback"]["unlisted_sparse_ops_raise"] is True
    assert "npu_fusion_attention" in doc["custom"]["exposed"]
    assert "docs" not in doc  # the 2.1 branch has no per-API support pages


def test_ops_of_the_newest_branch() -> None:
    doc = load(REPO / "data" / "ops" / "torch_npu-master.toml")
    assert doc["meta"]["torch_line"] == "v2.13"
    lists = [set(doc["aten"][k]) for k in ("op_api", "acl_op", "op_api_and_acl_op", "sparse_only")]
    assert sum(len(s) for s in lists) == len(set().union(*lists)), "an op in two implementation groups"
    for group in doc["aten"].values():
        if isinstance(group, list):
            assert group == sorted(group)
    exposed_bases = {n.split(".")[0] for n in doc["custom"]["ops"]}
    assert set(doc["custom"]["exposed"]) <= exposed_bases
    # docs/zh/api/native_api/pytorch_2-13-0/torch.md, torch.sparse_coo_tensor: 限制与说明
    assert doc["docs"]["dtype_limits"]["torch.sparse_coo_tensor"] == {
        "indices": ["int32", "int64"], "values": ["fp16", "fp32", "int32"]}
    # the same page marks torch.sparse_csr_tensor ✘ on Atlas A2, Atlas A3 and Ascend 950DT
    assert "torch.sparse_csr_tensor" in doc["docs"]["unsupported_on_every_product"]
    assert "torch.sparse_coo_tensor" not in doc["docs"]["unsupported_on_every_product"]


def test_api_facts_of_a_release() -> None:
    doc = load(REPO / "data" / "api" / "torch_npu-26.1.0-pytorch2.12.0.toml")
    meta = doc["meta"]
    assert meta["device_modules"] == ["torch.npu=torch_npu.npu"]
    assert meta["tensor_methods"] == ["npu", "is_npu"]
    assert "hccl" in meta["distributed_backends"]
    assert meta["pybind_enums"]["ProfilerActivity"] == ["CPU", "NPU"]
    assert "torch.distributed.is_hccl_available" in meta["torch_patches"]
    npu = doc["module"]["torch_npu.npu"]
    assert {"synchronize", "device_count", "Stream", "set_option"} <= set(npu["all"])
    assert "amp" in npu["submodules"]
    assert "npu_fusion_attention" in doc["ops"]["exposed"]


def test_torch_api_matches_the_installed_torch() -> None:
    site = extract.default_torch_site()
    version = extract.torch_version(site)
    written = (REPO / "data" / "api" / f"torch-{'.'.join(version.split('.')[:2])}.toml").read_text(encoding="utf-8")
    assert extract.render(api.torch_api(site, extract.TORCH_PACKAGES, version)) == written
    # An independent reading: the modules' own __all__ at run time.
    import torch.accelerator
    import torch.amp
    doc = load(REPO / "data" / "api" / "torch-2.13.toml")
    assert set(doc["module"]["torch.accelerator"]["all"]) == set(torch.accelerator.__all__)
    assert set(doc["module"]["torch.amp"]["all"]) == set(torch.amp.__all__)


def test_yaml_subset() -> None:
    text = """all_version: [v2.1, v2.2, v2.3]
official:
  - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  # a comment
    acl_op: all_version
    op_api: [v2.2, newest]
    gen_opapi:
      out:
        size: self
      exec: aclnnAdd

  - func: mm(Tensor self, Tensor mat2) -> Tensor
    op_api: v2.1, v2.3
supported:
  - _local_scalar_dense
  - func: clone
    op_api: True
"""
    scalars, sections = common.parse_op_yaml(text)
    assert scalars == {"all_version": "[v2.1, v2.2, v2.3]"}
    assert [e.func.split("(")[0] for e in sections["official"]] == ["add.Tensor", "mm"]
    assert sections["official"][0].keys == {"acl_op": "all_version", "op_api": "[v2.2, newest]"}
    assert [(e.func, e.keys) for e in sections["supported"]] == [("_local_scalar_dense", {}), ("clone", {"op_api": "True"})]
    lines = common.flow_list(scalars["all_version"])
    assert ops.versions("[v2.2, newest]", lines) == ["v2.2", "v2.3"]
    assert ops.versions("[v2.1, v2.2]", lines) == ["v2.1", "v2.2"]
    assert ops.versions("v2.1, v2.3", lines) == ["v2.1", "v2.3"]
    assert ops.versions("all_version", lines) == lines
    assert ops.versions(None, lines) == []


def test_module_reading() -> None:
    source = '''
import os
from .streams import Stream, Event as _Event
__all__ = ["Stream", "synchronize"]
__all__ += ["matmul"]
__all__.extend(["conv"])
if os.name:
    def synchronize(): ...
try:
    from ._x import fast
except ImportError:
    fast = None
matmul = object()
os.environ["X"] = "1"
'''
    declared, bound = api.module_names(source)
    assert declared == ["Stream", "synchronize", "matmul", "conv"]
    assert bound == ["Stream", "_Event", "__all__", "fast", "matmul", "synchronize"]  # no `os`
    effects = api.torch_side_effects('''
torch._register_device_module("npu", torch_npu.npu)
torch.utils.rename_privateuse1_backend("npu")
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True)
torch.distributed.is_hccl_available = is_hccl_available
setattr(torch.nn, "DropoutWithByteMask", x)
torch.distributed.Backend.register_backend("hccl", make)
_PUBLIC_API_ALIASES = [("distributed.gather", "distributed.distributed_c10d._gather")]
''')
    assert effects == {"patched": ["torch.distributed.is_hccl_available", "torch.distributed.gather",
                                   "torch.nn.DropoutWithByteMask"],
                       "device_modules": ["torch.npu=torch_npu.npu"], "backend": ["npu"],
                       "tensor_methods": ["generated"], "dist_backends": ["hccl"]}
    assert api.pybind_enums('py::enum_<A>(m, "ProfilerActivity")\n  .value("CPU", A::CPU)\n  .value("NPU", A::NPU);') \
        == {"ProfilerActivity": ["CPU", "NPU"]}
