"""The HTML reports (trace, compare, bench) rendered in a real browser: headless Chromium loads each
page, the rendered DOM must contain its SVG charts with drawn shapes, the console must stay free of
errors, and a screenshot is kept under build/test-artifacts/ for a person to look at.
"""
import html.parser
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "build" / "test-artifacts"
H200 = "gpu-h200"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/install-deps.sh installs it)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--hide-scrollbars"]


class SvgCounter(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs = 0
        self.shapes = 0
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.svgs += 1
            self.depth += 1
        elif self.depth and tag in ("rect", "path", "circle", "line", "polyline", "polygon"):
            self.shapes += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.depth -= 1


def render(page: pathlib.Path, name: str):
    """Returns (rendered DOM, console error lines); saves a screenshot artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        common = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0"]
        dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
        shot = ARTIFACTS / f"{name}.png"
        subprocess.run([*common, f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    errors = [l for l in dom.stderr.splitlines() if "CONSOLE" in l and ("rror" in l or "Uncaught" in l)]
    assert shot.exists() and shot.stat().st_size > 1000, f"no screenshot for {name}"
    return dom.stdout, errors


def check_page(page, name, min_svgs=1):
    assert page.exists(), page
    dom, errors = render(page, name)
    assert errors == [], errors
    counter = SvgCounter()
    counter.feed(dom)
    assert counter.svgs >= min_svgs, f"{name}: {counter.svgs} svg elements rendered"
    assert counter.shapes >= 3 * counter.svgs, f"{name}: charts have almost nothing drawn ({counter.shapes} shapes)"


def test_bench_compare_html_renders(run, fixtures, tmp_path):
    bench = fixtures / H200 / "bench"
    page = tmp_path / "bench.html"
    r = run("bench", "compare", "--batch-size", "64", bench / "resnet50_fp32.csv",
            bench / "resnet50_bf16_channels_last.csv", "--html", page)
    assert r.returncode in (0, 1), r.stderr
    check_page(page, "bench_compare")


def test_compare_html_renders(run, fixtures, tmp_path):
    dumps = fixtures / H200 / "dumps"
    page = tmp_path / "compare.html"
    r = run("compare", dumps / "tinygpt_cuda_bf16amp", dumps / "tinygpt_cuda_fp32", "--html", page)
    assert r.returncode in (0, 1), r.stderr
    check_page(page, "compare")


def test_trace_html_renders(run, fixtures, tmp_path):
    help_text = run("--help").stdout
    if " trace " not in help_text and "\n  trace" not in help_text:
        pytest.skip("trace verb not built")
    traces = fixtures / H200 / "traces"
    page = tmp_path / "trace.html"
    r = run("trace", "summary", traces / "antipattern_small_matmuls_slow.json.gz", "--html", page)
    assert r.returncode in (0, 1), r.stderr
    check_page(page, "trace_summary")


def test_trace_ops_html_renders(run, fixtures, tmp_path):
    page = tmp_path / "ops.html"
    r = run("trace", "ops", fixtures / H200 / "traces" / "gpt2_sdpa_bf16.json.gz", "--html", page)
    assert r.returncode == 0, r.stderr
    check_page(page, "trace_ops")
