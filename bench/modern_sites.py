"""The "modern sites" oracle of bench/modern_corpus.py: finds, without banjia, the places where a
training or serving code base uses a construct a migration to Ascend NPUs has to look at
(torch.compile, FSDP, DTensor, flash-attn, vLLM, triton kernels, prebuilt CUDA extensions, CUDA
environment variables, CUDA values in configs, ...).

Python files are read with `ast`: imports give each local name its fully qualified name
(`from torch.distributed.fsdp import FullyShardedDataParallel as FSDP` makes `FSDP(...)` a call of
`torch.distributed.fsdp.FullyShardedDataParallel`), flow-insensitively and file-wide, which is what
a reader of the file would assume. Config files (YAML, JSON, TOML) are read line by line with regular
expressions, since a config's meaning is its text.
A site is (family, file, line, kind, what); kinds: import, call, decorator, reference, string,
env-set, env-read, config.
"""
from __future__ import annotations

import ast
import dataclasses
import pathlib
import re
from typing import Iterable, Iterator, Optional

SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", "build", "dist"}
CONFIG_SUFFIXES = {".yaml", ".yml", ".json", ".toml"}
MAX_CONFIG_BYTES = 1 << 20  # larger JSON files are data (token lists, eval sets), not configuration


@dataclasses.dataclass(frozen=True, order=True)
class Site:
    family: str
    file: str  # relative to the repository root, '/'-separated
    line: int
    kind: str
    what: str
    # Last line of the site: an import statement's (`from flash_attn import (\n  flash_attn_func,\n)`
    # names its module on the first line and what it takes on the next ones); else the line itself.
    end_line: int = 0
    # A call's: the lines of the import statement that bound the name it calls through (0, 0: none).
    import_span: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if self.end_line < self.line:
            object.__setattr__(self, "end_line", self.line)


@dataclasses.dataclass(frozen=True)
class Family:
    """How one family is recognised. A qualified name q matches an entry e when q == e or q starts with
    e + "."; `last_names` entries match any name under their prefix whose last part is listed (torch
    moves these APIs between modules: torch.distributed._composable.fsdp.fully_shard, then
    torch.distributed.fsdp.fully_shard)."""
    name: str
    title: str
    modules: tuple[str, ...] = ()  # an import of these (or their submodules) is a site
    calls_into_modules: bool = True  # and so is a call into them: kernel libraries, whose calls need a rewrite
    calls: tuple[str, ...] = ()  # calls and decorators of these (or names under them)
    last_names: tuple[tuple[str, frozenset[str]], ...] = ()
    references: tuple[str, ...] = ()  # any use of these names (dtypes)
    strings: tuple[str, ...] = ()  # string constants equal to one of these


FAMILIES: tuple[Family, ...] = (
    Family("torch_compile", "`torch.compile` (calls and decorators)", calls=("torch.compile",)),
    Family("fsdp", "FSDP / FSDP2 (`FullyShardedDataParallel`, `fully_shard`, Lightning's `FSDPStrategy`)",
           last_names=(("torch.distributed", frozenset({"FullyShardedDataParallel", "fully_shard"})),
                       ("lightning", frozenset({"FSDPStrategy"})), ("lightning_fabric", frozenset({"FSDPStrategy"})),
                       ("pytorch_lightning", frozenset({"FSDPStrategy"})))),
    Family("dtensor", "DTensor, device mesh, tensor and context parallel",
           last_names=(("torch.distributed", frozenset({"init_device_mesh", "DeviceMesh", "distribute_tensor",
                                                        "distribute_module", "parallelize_module",
                                                        "context_parallel"})),)),
    Family("flex_attention", "`flex_attention`, `create_block_mask`",
           last_names=(("torch.nn.attention.flex_attention", frozenset({"flex_attention", "create_block_mask"})),)),
    Family("float8", "torchao and float8 (`torchao`, `torch._scaled_mm`, `torch.float8_*` dtypes)",
           modules=("torchao",), calls=("torch._scaled_mm",),
           references=("torch.float8_e4m3fn", "torch.float8_e5m2", "torch.float8_e4m3fnuz", "torch.float8_e5m2fnuz")),
    Family("transformer_engine", "transformer_engine", modules=("transformer_engine",)),
    Family("mamba", "mamba_ssm / causal_conv1d", modules=("mamba_ssm", "causal_conv1d")),
    # Serving engines: their Ascend ports (vllm-ascend, SGLang's NPU backend) keep the Python API, so
    # only the import (which engine build is installed) and vLLM's NCCL communicator are sites.
    Family("vllm", "vLLM (imports, `PyNcclCommunicator`)", modules=("vllm",), calls_into_modules=False,
           last_names=(("vllm", frozenset({"PyNcclCommunicator"})),)),
    Family("sglang", "SGLang (imports)", modules=("sglang",), calls_into_modules=False),
    Family("liger_kernel", "liger_kernel", modules=("liger_kernel",)),
    Family("deepspeed", "deepspeed use sites (`deepspeed.initialize`, `deepspeed.ops`)",
           modules=("deepspeed.ops",), calls=("deepspeed.initialize",)),
    Family("flash_attn", "flash_attn (imports, calls, `attn_implementation=\"flash_attention_2\"`)",
           modules=("flash_attn", "flash_attn_interface"), strings=("flash_attention_2", "flash_attention_3")),
    Family("xformers", "xformers", modules=("xformers",)),
    Family("apex", "apex", modules=("apex",)),
    Family("triton", "triton kernels (`@triton.jit`)", calls=("triton.jit",)),
    Family("cuda_ext", "prebuilt or JIT-built CUDA extension modules",
           calls=("torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline",
                  "torch.utils.cpp_extension.CUDAExtension")),
    Family("kernels_hub", "hub-loaded kernels (`kernels.get_kernel`)",
           calls=("kernels.get_kernel", "kernels.get_local_kernel", "kernels.kernelize")),
    Family("cuda_env_set", "CUDA/NCCL environment variables set from Python"),
    Family("cuda_env_read", "CUDA/NCCL environment variables read from Python"),
    Family("composite_backend", "composite backend strings (`\"cpu:gloo,cuda:nccl\"`)"),
    Family("config", "CUDA values in YAML/JSON/TOML configs (`device: cuda`, `backend: nccl`, NCCL_* keys)"),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)

# Top-level modules that only exist as compiled CUDA extensions (flash-attn's csrc, apex, Megatron's
# fused kernels, mamba, AutoGPTQ/exllama); a module of the same name in the tree is not one.
PREBUILT_EXTENSION = re.compile(
    r"^(\w+_cuda|\w+_cuda_lib|\w+_cuda_\w+|rotary_emb|dropout_layer_norm|fused_dense_lib|amp_C|"
    r"exllama_kernels|exllamav2_kernels|flash_attn_\d_cuda|ft_attention|fused_softmax_lib)$")
CUDA_ENV = re.compile(r"^(CUDA_|NCCL_|TORCH_NCCL_|PYTORCH_CUDA_|CUBLAS_|CUBLASLT_|CUDNN_|TORCH_CUDNN_|NVIDIA_|NVTE_)\w+$")
COMPOSITE_BACKEND = re.compile(r"\b(?:cpu|cuda|meta):\w+\s*,\s*(?:cpu|cuda|meta):\w+")
CONFIG_VALUE = re.compile(r"""^\s*-?\s*["']?([\w.\-]+)["']?\s*[:=]\s*["']?(cuda(?::\d+)?|nccl|gpu)["']?\s*,?\s*(?:#.*)?$""")
GPU_KEYS = {"accelerator", "device", "device_type", "devices_type"}  # where "gpu" means an NVIDIA device
CONFIG_ENV_KEY = re.compile(r"""^\s*-?\s*["']?((?:CUDA_|NCCL_|TORCH_NCCL_|PYTORCH_CUDA_|CUBLAS_|CUDNN_|NVTE_)\w+)["']?\s*[:=]""")


def iter_files(root: pathlib.Path) -> Iterator[pathlib.Path]:
    """Every regular file under root, sorted, skipping the directories banjia skips too."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(p in SKIP_DIRS or p.endswith(".egg-info") for p in rel[:-1]) or not path.is_file() or path.is_symlink():
            continue
        yield path


def modules_by_dir(root: pathlib.Path) -> dict[str, set[str]]:
    """Directory (relative, '.' for the root) -> the Python modules and packages it holds. A top-level
    `import X` finds the tree's own X when X sits next to the running script, at the root or in src/
    (verl/third_party/vllm is not `vllm`)."""
    names: dict[str, set[str]] = {}
    for path in iter_files(root):
        if path.suffix == ".py":
            rel = path.relative_to(root)
            if path.name == "__init__.py":
                names.setdefault(rel.parent.parent.as_posix(), set()).add(path.parent.name)
            else:
                names.setdefault(rel.parent.as_posix(), set()).add(path.stem)
    return names


class _Imports:
    """Local name -> fully qualified name, from every import statement of one file."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, str] = {}
        self.spans: dict[str, tuple[int, int]] = {}  # local name -> its import statement's lines
        for node in ast.walk(tree):
            span = (node.lineno, getattr(node, "end_lineno", None) or node.lineno) if isinstance(node, ast.stmt) else (0, 0)
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.names[a.asname] = a.name
                        self.spans[a.asname] = span
                    else:
                        top = a.name.split(".")[0]
                        self.names.setdefault(top, top)
                        self.spans.setdefault(top, span)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for a in node.names:
                    if a.name != "*":
                        self.names[a.asname or a.name] = f"{node.module}.{a.name}"
                        self.spans[a.asname or a.name] = span

    def span_of(self, node: ast.expr) -> tuple[int, int]:
        """The import statement's lines of the name an expression starts with."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return self.spans.get(node.id, (0, 0)) if isinstance(node, ast.Name) else (0, 0)

    def qualify(self, node: ast.expr) -> Optional[str]:
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualify(node.value)
            return f"{base}.{node.attr}" if base else None
        return None


def _under(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _family_of_name(name: str, *, for_call: bool) -> Optional[str]:
    for f in FAMILIES:
        if for_call and (_under(name, f.calls) or (f.calls_into_modules and _under(name, f.modules))):
            return f.name
        if for_call and any(_under(name, (prefix,)) and name.rsplit(".", 1)[-1] in last for prefix, last in f.last_names):
            return f.name
        if not for_call and name in f.references:
            return f.name
    return None


def _string_sites(node: ast.Constant) -> Iterator[tuple[str, str]]:
    assert isinstance(node.value, str)
    for f in FAMILIES:
        if node.value in f.strings:
            yield f.name, node.value
    match = COMPOSITE_BACKEND.search(node.value)
    if match and "cuda" in match.group(0):
        yield "composite_backend", match.group(0)


_ENV_SETTERS = {"setdefault": "env-set", "update": "env-set", "pop": "env-set", "get": "env-read"}


def _env_sites(node: ast.AST, imports: _Imports) -> Iterator[tuple[str, str, int]]:
    """(kind, variable, line) for CUDA variables read or written through os.environ / os.getenv /
    os.putenv; the line is the variable name's (a subscript may span lines)."""
    def is_environ(e: ast.expr) -> bool:
        return imports.qualify(e) == "os.environ"

    def const_keys(kind: str, args: Iterable[Optional[ast.expr]]) -> Iterator[tuple[str, str, int]]:
        for a in args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and CUDA_ENV.match(a.value):
                yield kind, a.value, a.lineno

    def keywords(kind: str, call: ast.Call) -> Iterator[tuple[str, str, int]]:
        yield from ((kind, kw.arg, kw.lineno) for kw in call.keywords if kw.arg and CUDA_ENV.match(kw.arg))

    if isinstance(node, ast.Subscript) and is_environ(node.value):
        yield from const_keys("env-read" if isinstance(node.ctx, ast.Load) else "env-set", [node.slice])
    elif isinstance(node, ast.Call):
        func = node.func
        name = imports.qualify(func)
        if isinstance(func, ast.Attribute) and is_environ(func.value) and func.attr in _ENV_SETTERS:
            kind = _ENV_SETTERS[func.attr]
            yield from const_keys(kind, node.args[:1])
            for a in node.args[:1]:
                if isinstance(a, ast.Dict):
                    yield from const_keys(kind, a.keys)
            yield from keywords(kind, node)
        elif name in ("os.getenv", "os.putenv"):
            yield from const_keys("env-read" if name == "os.getenv" else "env-set", node.args[:1])
        elif isinstance(func, ast.Name) and func.id == "dict" and node.args and is_environ(node.args[0]):
            yield from keywords("env-set", node)
        for kw in node.keywords:  # subprocess.run(..., env={...})
            if kw.arg == "env" and isinstance(kw.value, ast.Dict):
                yield from const_keys("env-set", kw.value.keys)
    elif isinstance(node, ast.Dict) and any(k is None and is_environ(v) for k, v in zip(node.keys, node.values)):
        yield from const_keys("env-set", node.keys)
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
            and is_environ(node.comparators[0]):
        yield from const_keys("env-read", [node.left])


def python_sites(rel: str, source: bytes, local: set[str]) -> list[Site]:
    """Sites of one Python file; [] when it does not parse (banjia reports those as input errors).
    `local`: the top-level module names that resolve to the tree's own modules from this file."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    imports = _Imports(tree)
    found: set[Site] = set()
    decorated: set[int] = set()  # id() of decorator nodes, so a decorator call is not also a call site
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                name = imports.qualify(target)
                family = _family_of_name(name, for_call=True) if name else None
                if family:
                    found.add(Site(family, rel, dec.lineno, "decorator", name or ""))
                    decorated.add(id(dec))
        elif isinstance(node, ast.Import):
            for a in node.names:
                found.update(_import_site(rel, node, a.name, local))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.update(_import_site(rel, node, node.module, local))
        elif isinstance(node, ast.Call) and id(node) not in decorated:
            name = imports.qualify(node.func)
            family = _family_of_name(name, for_call=True) if name else None
            if family and not (family == "kernels_hub" and "kernels" in local):
                found.add(Site(family, rel, node.lineno, "call", name or "", import_span=imports.span_of(node.func)))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            name = imports.qualify(node)
            family = _family_of_name(name, for_call=False) if name else None
            if family:
                found.add(Site(family, rel, node.lineno, "reference", name or ""))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for family, text in _string_sites(node):
                found.add(Site(family, rel, node.lineno, "string", text))
        for kind, var, line in _env_sites(node, imports):
            found.add(Site("cuda_env_set" if kind == "env-set" else "cuda_env_read", rel, line, kind, var))
    return sorted(found)


def _import_site(rel: str, node: ast.Import | ast.ImportFrom, module: str, local: set[str]) -> Iterator[Site]:
    top = module.split(".")[0]
    line, end = node.lineno, node.end_lineno or node.lineno
    if PREBUILT_EXTENSION.match(top) and top not in local:
        yield Site("cuda_ext", rel, line, "import", module, end)
        return
    for f in FAMILIES:
        if _under(module, f.modules) and top not in local:
            yield Site(f.name, rel, line, "import", module, end)


def config_sites(rel: str, text: str) -> list[Site]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        match = CONFIG_VALUE.match(line)
        if match and (match.group(2) != "gpu" or match.group(1).lower() in GPU_KEYS):
            found.append(Site("config", rel, number, "config", f"{match.group(1)}: {match.group(2)}"))
        env = CONFIG_ENV_KEY.match(line)
        if env:
            found.append(Site("config", rel, number, "config", env.group(1)))
        composite = COMPOSITE_BACKEND.search(line)
        if composite and "cuda" in composite.group(0):
            found.append(Site("composite_backend", rel, number, "config", composite.group(0)))
    return found


def find_sites(root: pathlib.Path) -> list[Site]:
    """Every modern site of the tree under root, sorted."""
    by_dir = modules_by_dir(root)
    sites: list[Site] = []
    for path in iter_files(root):
        rel = path.relative_to(root).as_posix()
        if path.suffix in (".py", ".pyi"):
            local = by_dir.get(path.relative_to(root).parent.as_posix(), set()) | by_dir.get(".", set()) \
                | by_dir.get("src", set())
            sites += python_sites(rel, path.read_bytes(), local)
        elif (path.suffix in CONFIG_SUFFIXES and path.stat().st_size <= MAX_CONFIG_BYTES
              and not any(p.startswith(".") for p in path.relative_to(root).parts[:-1])):
            # Hidden directories (.github, .lightning) hold CI workflows, not the program's configuration.
            sites += config_sites(rel, path.read_text(errors="replace"))
    return sorted(set(sites))
