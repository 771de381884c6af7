"""End-to-end test of scan on modern LLM code (tests/fixtures/llm-stacks, synthetic).

The oracle is the fixture itself, not banjia's output: every construct in its Python files carries an
`# expect: RULE ...` comment written by hand, and the findings of those rules must be exactly the
marked ones, so a family that stops being found (or starts being reported elsewhere) fails here.
"""
import collections
import json
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
TREE = REPO / "tests" / "fixtures" / "llm-stacks"
EXPECT = re.compile(r"#\s*expect:\s*([a-z0-9 -]+)$")


def scan_json(run, *args):
    r = run("scan", *args, "--format", "json", "--fail-on", "none")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def expected_markers():
    """(file, line) -> Counter of rule ids, from the `# expect:` comments of the fixture."""
    out = {}
    for path in sorted(TREE.glob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = EXPECT.search(line)
            if m:
                out[(path.name, n)] = collections.Counter(m.group(1).split())
    return out


def test_every_modern_construct_gets_its_finding(run):
    expected = expected_markers()
    marked_rules = {r for c in expected.values() for r in c}
    # every family of modern constructs the rules cover is marked somewhere in the fixture
    for family in ["torch-compile", "torch-compile-cuda-graphs", "fsdp", "device-mesh", "tensor-parallel",
                   "context-parallel", "flex-attention", "torchao-float8", "transformer-engine", "mamba-kernels",
                   "vllm", "vllm-pynccl", "liger-kernel", "liger-kernel-patch", "deepspeed-engine", "deepspeed-cuda-ops", "hub-kernels",
                   "cuda-ext-rotary", "cuda-ext-layer-norm", "cuda-ext-softmax", "cuda-ext-cross-entropy",
                   "cuda-ext-fused-dense", "cuda-ext-quant-kernels", "cuda-env-var", "nccl-backend", "device-string"]:
        assert family in marked_rules, family
    doc = scan_json(run, TREE)
    actual = collections.defaultdict(collections.Counter)
    for f in doc["findings"]:
        name = pathlib.Path(f["file"]).name
        if name.endswith(".py") and f["rule"] in marked_rules:
            actual[(name, f["line"])][f["rule"]] += 1
    missing = {k: v - actual.get(k, collections.Counter()) for k, v in expected.items()}
    missing = {k: v for k, v in missing.items() if v}
    extra = {k: v - expected.get(k, collections.Counter()) for k, v in actual.items()}
    extra = {k: v for k, v in extra.items() if v}
    assert missing == {}, f"constructs without their finding: {missing}"
    assert extra == {}, f"findings on unmarked lines: {extra}"
