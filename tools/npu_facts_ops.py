"""Operator facts of one torch_npu branch for tools/extract_npu_facts.py: which aten overloads have NPU
kernels (and through which implementation), which custom ops torch_npu adds and exposes, the CPU
fallback for everything else, and the per-API limits of the branch's native-API documentation.

How the tables are read (facts about the op-plugin/torch_npu code generators, cited in the output):
- op_plugin_functions.yaml: `all_version` lists the torch lines; an entry's `acl_op`, `op_api`, `sparse`
  and `exposed` keys are `all_version`, a flow list `[first, last]` (inclusive, `newest` = open end) or
  a comma-separated list of lines (torchnpugen/op_codegen_utils.py get_version). An entry exists for a
  line when that line is in acl_op, op_api or sparse (torchnpugen/gen_op_plugin_functions.py).
- The `tocpu` and `unsupported` sections are read only for v1.11 and v2.0 (same file), so no op of a
  later line is marked for the CPU or AI CPU there.
- Public `torch_npu.<name>` ops are the `custom` entries with `exposed` (torchnpugen/utils.py
  filt_exposed_api).
"""
from __future__ import annotations

import re

from npu_facts_common import GitTree, TomlValue, YamlEntry, flow_list, parse_op_yaml

NATIVE_YAML = "torch_npu/csrc/aten/npu_native_functions.yaml"
OP_PLUGIN_YAML = "op_plugin/config/op_plugin_functions.yaml"
FALLBACK_CPP = "torch_npu/csrc/aten/VariableFallbackKernel.cpp"
DOCS_ROOT = "docs/zh/api/native_api"
DTYPES = {"bf16", "fp16", "fp32", "fp64", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
          "int64", "bool", "complex32", "complex64", "complex128", "hif8", "fp8_e4m3fn", "fp8_e5m2"}


def versions(spec: str | None, all_versions: list[str]) -> list[str]:
    if spec is None:
        return []
    spec = spec.strip()
    if spec.startswith("["):
        first, last = flow_list(spec)
        start = all_versions.index(first)
        return all_versions[start:] if last == "newest" else all_versions[start:all_versions.index(last) + 1]
    if spec == "all_version":
        return list(all_versions)
    return [v.strip() for v in spec.split(",") if v.strip()]


def op_name(func: str) -> str:
    """`add.Tensor(Tensor self, ...) -> Tensor` -> `add.Tensor` (the overload, as torch names it)."""
    return func.split("(", 1)[0].strip()


def _sorted_unique(names: list[str]) -> list[TomlValue]:
    return list(sorted(set(names)))


def op_plugin_facts(plugin: GitTree, line: str) -> dict[str, dict[str, TomlValue]]:
    scalars, sections = parse_op_yaml(plugin.read(OP_PLUGIN_YAML))
    all_versions = flow_list(scalars["all_version"])
    if line not in all_versions:
        raise ValueError(f"{line} is not in all_version {all_versions} of {plugin.cite(OP_PLUGIN_YAML)}")
    by_impl: dict[str, list[str]] = {"op_api": [], "acl_op": [], "op_api_and_acl_op": [], "sparse_only": []}
    autograd: list[str] = []
    custom: list[str] = []
    quant: list[str] = []
    exposed: list[str] = []

    def present(e: YamlEntry) -> tuple[bool, bool, bool]:
        return (line in versions(e.keys.get("op_api"), all_versions),
                line in versions(e.keys.get("acl_op"), all_versions),
                line in versions(e.keys.get("sparse"), all_versions))

    for e in sections.get("official", []):
        api, acl, sparse = present(e)
        if api and acl:
            by_impl["op_api_and_acl_op"].append(op_name(e.func))
        elif api or acl:
            by_impl["op_api" if api else "acl_op"].append(op_name(e.func))
        elif sparse:
            by_impl["sparse_only"].append(op_name(e.func))
    for key, target in (("autograd", autograd), ("custom", custom), ("quant", quant)):
        for e in sections.get(key, []):
            if any(present(e)):
                target.append(op_name(e.func))
                if key == "custom" and line in versions(e.keys.get("exposed"), all_versions):
                    exposed.append(op_name(e.func).split(".")[0])
    cite = plugin.cite(OP_PLUGIN_YAML)
    return {
        "aten": {"source": f"{cite} (section official: entries whose op_api / acl_op / sparse versions include {line})",
                 **{k: _sorted_unique(v) for k, v in by_impl.items()},
                 "autograd": _sorted_unique(autograd)},
        "custom": {"source": f"{cite} (sections custom and quant for {line}; exposed: the custom entries whose "
                             "`exposed` versions include it, which torch_npu lists in torch_npu.__all__)",
                   "ops": _sorted_unique(custom), "quant": _sorted_unique(quant), "exposed": _sorted_unique(exposed)},
    }


def native_facts(pytorch: GitTree) -> dict[str, TomlValue]:
    _, sections = parse_op_yaml(pytorch.read(NATIVE_YAML))
    custom = [e for e in sections.get("custom", []) + sections.get("custom_autograd", [])]
    return {"source": f"{pytorch.cite(NATIVE_YAML)} (supported: aten overloads torch_npu registers itself; "
                      "custom: its own torch.ops.npu ops, exposed when marked so)",
            "supported": _sorted_unique([op_name(e.func) for e in sections.get("supported", [])]),
            "custom": _sorted_unique([op_name(e.func) for e in custom]),
            "exposed": _sorted_unique([op_name(e.func).split(".")[0] for e in custom
                                       if e.keys.get("exposed", "").lower() == "true"])}


def fallback_facts(pytorch: GitTree) -> dict[str, TomlValue]:
    """What happens to an aten op with no NPU kernel, read from the fallback registration itself."""
    text = pytorch.read(FALLBACK_CPP)
    cpu = bool(re.search(r"TORCH_LIBRARY_IMPL\(_, PrivateUse1, m\)\s*\{\s*m\.fallback\([^;]*npu_cpu_fallback", text))
    cpu = cpu and "at::native::cpu_fallback(op, stack)" in text
    sparse = bool(re.search(r"TORCH_LIBRARY_IMPL\(_, SparsePrivateUse1, m\)\s*\{\s*m\.fallback\([^;]*npu_Sparse_fallback",
                            text))
    return {"source": f"{pytorch.cite(FALLBACK_CPP)} (TORCH_LIBRARY_IMPL(_, PrivateUse1) registers npu_cpu_fallback, "
                      "which calls at::native::cpu_fallback; SparsePrivateUse1 registers npu_Sparse_fallback, which "
                      "raises); the op tables of this branch mark no op for AI CPU",
            "unlisted_dense_ops_run_on_cpu": cpu,
            "unlisted_sparse_ops_raise": sparse,
            "ai_cpu_marked_ops": []}


def _doc_blocks(text: str) -> list[tuple[str, str]]:
    """(API name, block text) for each `### name` section of a native-API page."""
    parts = re.split(r"^### +(.+?)\s*$", text, flags=re.M)
    names = [re.sub(r"^(class|function)\s+", "", re.sub(r"<[^>]+>", "", parts[i])).strip()
             for i in range(1, len(parts) - 1, 2)]
    return list(zip(names, parts[2::2]))


def _dtype_limits(block: str) -> dict[str, TomlValue]:
    """{arg: dtypes} from the `arg`仅支持bf16，fp16 ("`arg` supports only ...") lines of a block's
    限制与说明 (limits) whose every item is a dtype."""
    out: dict[str, TomlValue] = {}
    notes = block.split("**限制与说明**", 1)
    if len(notes) < 2:
        return out
    for m in re.finditer(r"`(\w+)`仅支持(?:输出)?([A-Za-z0-9_，, ]+)", notes[1].split("</div>", 1)[0]):
        items: list[TomlValue] = [t.strip() for t in re.split(r"[，,]", m.group(2)) if t.strip()]
        if items and all(t in DTYPES for t in items):
            out[m.group(1)] = items
    return out


def docs_facts(pytorch: GitTree, torch_line: str) -> dict[str, TomlValue] | None:
    """Per-API support marks and dtype limits of docs/zh/api/native_api/pytorch_<line>/ (None when the
    branch has no such pages for this torch line)."""
    major, minor = torch_line.lstrip("v").split(".")
    dirs = sorted({p.split("/")[4] for p in pytorch.files(DOCS_ROOT) if p.count("/") >= 5}
                  - {"appendixes"})
    wanted = [d for d in dirs if d.startswith(f"pytorch_{major}-{minor}-")]
    if not wanted:
        return None
    root = f"{DOCS_ROOT}/{wanted[-1]}"
    unsupported: list[str] = []
    limits: dict[str, TomlValue] = {}
    apis = 0
    for path in pytorch.files(root):
        if not path.endswith(".md"):
            continue
        for api, block in _doc_blocks(pytorch.read(path)):
            marks = re.findall(r"^\|\s*<term>[^|]*</term>\s*\|\s*([✔✘])\s*\|", block, flags=re.M)
            if not marks:
                continue
            apis += 1
            if all(m == "✘" for m in marks):
                unsupported.append(api)
            if found := _dtype_limits(block):
                limits[api] = found
    return {"source": f"{pytorch.repo_name} : {root}/*.md @ {pytorch.commit()} (支持情况 tables: ✘ on every "
                      "listed product; 限制与说明: `arg`仅支持 <dtypes>)",
            "apis_documented": apis,
            "unsupported_on_every_product": _sorted_unique(unsupported),
            "dtype_limits": limits}
