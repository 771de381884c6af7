"""The two oracles of bench/modern_corpus.py on hand-written cases: bench/modern_sites.py (which
modern constructs a file uses) and bench/harmful_edits.py (which automatic edits break a program).
They judge banjia in the benchmark, so they get tests of their own; neither runs banjia."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))

import harmful_edits  # noqa: E402
import modern_corpus  # noqa: E402
import modern_sites  # noqa: E402

PROGRAM = b'''import os
import torch
import flash_attn
import triton
import rotary_emb
from flash_attn import flash_attn_func
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import fully_shard
from torch.distributed.device_mesh import init_device_mesh
from vllm import SamplingParams

@torch.compile(mode="max-autotune")
def step(x):
    return x

@triton.jit
def kernel(x_ptr):
    pass

model = torch.compile(torch.nn.Linear(2, 2))
model = FSDP(model)
fully_shard(model)
mesh = init_device_mesh("cuda", (2,))
y = flash_attn_func(1, 2, 3)
cfg = {"attn_implementation": "flash_attention_2"}
params = SamplingParams(n=1)
os.environ["NCCL_DEBUG"] = "INFO"
visible = os.environ.get("CUDA_VISIBLE_DEVICES")
os.environ["HOME"] = "/tmp"
torch.distributed.init_process_group("cpu:gloo,cuda:nccl")
'''


def sites(source: bytes, local: frozenset[str] = frozenset()) -> set[tuple[str, int, str]]:
    return {(s.family, s.line, s.kind) for s in modern_sites.python_sites("t.py", source, set(local))}


def test_modern_sites_of_a_program() -> None:
    assert sites(PROGRAM) == {
        ("flash_attn", 3, "import"), ("cuda_ext", 5, "import"), ("flash_attn", 6, "import"), ("vllm", 10, "import"),
        ("torch_compile", 12, "decorator"), ("triton", 16, "decorator"), ("torch_compile", 20, "call"),
        ("fsdp", 21, "call"), ("fsdp", 22, "call"), ("dtensor", 23, "call"), ("flash_attn", 24, "call"),
        ("flash_attn", 25, "string"), ("cuda_env_set", 27, "env-set"), ("cuda_env_read", 28, "env-read"),
        ("composite_backend", 30, "string"),
    }


def test_a_module_of_the_tree_is_no_prebuilt_extension() -> None:
    assert sites(b"import rotary_emb\n", frozenset({"rotary_emb"})) == set()
    assert sites(b"import selective_scan_cuda\n") == {("cuda_ext", 1, "import")}


def test_sites_on_several_lines() -> None:
    source = b'import os\nos.environ[\n    "NCCL_ALGO"\n] = "Ring"\nfrom flash_attn import (\n    flash_attn_func,\n)\n'
    found = modern_sites.python_sites("t.py", source, set())
    assert [(s.family, s.line, s.end_line) for s in found] == [("cuda_env_set", 3, 3), ("flash_attn", 5, 7)]
    import_site = found[1]
    assert modern_corpus.has_finding(import_site, {"t.py": [(6, 6)]})
    assert not modern_corpus.has_finding(import_site, {"t.py": [(8, 8)], "u.py": [(5, 5)]})


def test_config_sites() -> None:
    text = "device: cuda\nbackend: 'nccl'\naccelerator: gpu\nname: gpu\nenv:\n  NCCL_DEBUG: INFO\ndevice: cpu\n"
    found = [(s.line, s.what) for s in modern_sites.config_sites("c.yaml", text)]
    assert found == [(1, "device: cuda"), (2, "backend: nccl"), (3, "accelerator: gpu"), (6, "NCCL_DEBUG")]


def harm(before: str, after: str) -> set[tuple[int, str]]:
    return {(h.line, h.check) for h in harmful_edits.file_harm("t.py", before.encode(), after.encode())}


def test_plain_rewrites_are_not_harmful() -> None:
    before = 'import torch\nx = torch.zeros(2).cuda()\ndevice = "cuda"\nif device == "cuda":\n    torch.cuda.synchronize()\n'
    after = before.replace("cuda", "npu").replace("import torch\n", "import torch\nimport torch_npu\n")
    assert harm(before, after) == set()


def test_capability_results_read() -> None:
    before = ("import torch\nmajor, minor = torch.cuda.get_device_capability()\n"
              "cap = torch.cuda.get_device_capability()\nok = cap >= (8, 0)\n"
              "n = torch.cuda.get_device_properties(0).multi_processor_count\nname = torch.cuda.get_device_name()\n")
    assert harm(before, before.replace("torch.cuda", "torch.npu")) == {(2, "capability"), (3, "capability"), (5, "capability")}


def test_nvidia_tests_flipped() -> None:
    before = ('import torch\nis_nvidia = dev.type == "cuda"\nif dev.type == "cuda":\n'
              '    torch.backends.cuda.matmul.allow_tf32 = True\nif dev.type == "cuda":\n    x = 1\n')
    assert harm(before, before.replace('"cuda"', '"npu"')) == {(2, "nvidia-test"), (3, "nvidia-test")}


def test_npu_aware_branches_rewritten() -> None:
    before = ('import torch\nif is_torch_npu_available():\n    d = "npu"\nelif torch.cuda.is_available():\n    d = "cuda"\n'
              'D = "npu" if torch.npu.is_available() else "cuda"\n')
    after = before.replace("torch.cuda", "torch.npu").replace('"cuda"', '"npu"')
    assert harm(before, after) == {(4, "npu-aware"), (5, "npu-aware"), (6, "npu-aware")}


def test_unparsable_output() -> None:
    assert harm("x = 1\n", "x = = 1\n") == {(1, "unparsable")}


def test_line_numbers_follow_ast_across_form_feeds() -> None:
    before = "import torch\n\x0c\nmajor, minor = torch.cuda.get_device_capability()\n"
    assert harm(before, before.replace("torch.cuda", "torch.npu")) == {(3, "capability")}
