"""End-to-end test of the static check of Triton kernels against triton-ascend's documented limits
(rules triton-kernel and triton-ascend-limit, data/triton/ascend_limits.toml).

The oracle is the fixture tests/fixtures/triton-kernels/kernels.py, not banjia's output: each line a
finding must be on carries a comment written by hand, `# expect: triton-kernel` for a kernel's own
finding and `# limit: ID` for a limit it is beyond; the findings must be exactly those, and each limit
finding must carry the message and source of its entry in the data file (read here with tomllib).
"""
import collections
import json
import pathlib
import re
import tomllib

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "triton-kernels" / "kernels.py"
LIMITS = REPO / "data" / "triton" / "ascend_limits.toml"
MARK = re.compile(r"#\s*(expect|limit):\s*([a-z0-9-]+)\s*$")


def scan(run, path):
    r = run("scan", path, "--format", "json", "--fail-on", "none")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def marked():
    """Counter of (line, 'triton-kernel' or limit id) from the fixture's comments."""
    out = collections.Counter()
    for n, line in enumerate(FIXTURE.read_text().splitlines(), 1):
        m = MARK.search(line)
        if m:
            out[(n, "triton-kernel" if m.group(1) == "expect" else m.group(2))] += 1
    return out


def test_findings_are_the_marked_ones(run):
    doc = scan(run, FIXTURE)
    limits = {l["id"]: l for l in tomllib.loads(LIMITS.read_text())["limit"]}
    actual = collections.Counter()
    for f in doc["findings"]:
        if f["rule"] == "triton-kernel":
            actual[(f["line"], "triton-kernel")] += 1
        elif f["rule"] == "triton-ascend-limit":
            lid = re.search(r"\(triton-ascend limit ([a-z0-9-]+)\)$", f["message"]).group(1)
            assert limits[lid]["message"] in f["message"]
            assert f["source"] == limits[lid]["source"]
            actual[(f["line"], lid)] += 1
    assert actual == marked()


def test_kernel_finding_spans_its_decorators_and_name(run):
    doc = scan(run, FIXTURE)
    lines = FIXTURE.read_text().splitlines()
    first = next(f for f in doc["findings"] if f["rule"] == "triton-kernel")
    # @triton.autotune(...), @triton.jit, def scale_kernel(...): three lines, the def last
    assert lines[first["line"] - 1].startswith("@triton.autotune")
    assert lines[first["end_line"] - 1].startswith("def scale_kernel")


def test_grid_finding_counts_the_programs(run):
    doc = scan(run, FIXTURE)
    grids = sorted(f["message"].split("`")[1] for f in doc["findings"] if f["message"].endswith("(triton-ascend limit grid-size)"))
    # 70000 programs; 256 * 512 = 131072, through the name `grid`
    assert grids == ["bitmap_kernel[(70000,)], 70000 programs", "layout_kernel[grid], 131072 programs"]


def test_every_documented_limit_is_exercised_by_the_fixture():
    limits = {l["id"] for l in tomllib.loads(LIMITS.read_text())["limit"]}
    exercised = {what for _, what in marked()} - {"triton-kernel"}
    # fp8 and dot_scaled formats are exercised by the rule's own examples (data/rules/triton.toml)
    assert limits - exercised == {"fp8", "dot-scaled-format"}


def test_the_doc_page_lists_every_limit():
    page = (REPO / "docs" / "triton-ascend.md").read_text()
    for l in tomllib.loads(LIMITS.read_text())["limit"]:
        assert f"| `{l['id']}` |" in page, l["id"]
