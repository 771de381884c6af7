"""The HTML reports (trace, compare, bench) rendered in a real browser: headless Chromium loads each
page, the rendered DOM must contain its SVG charts with drawn shapes, the console must stay free of
errors, and a screenshot is kept under build/test-artifacts/ for a person to look at. The compare page
is also measured as laid out: a script added to a copy of the page writes the computed colours of the
status rows, the alignment of text and number cells and the charts' rendered widths into the DOM.
Chinese text must render with a CJK font, not as the missing-glyph box.
"""
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

from html_report_dom import own_text, parse, svg_texts

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


def dump_dom(page: pathlib.Path, window="1280,1600"):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                               f"--window-size={window}", "--dump-dom", page.as_uri()],
                              capture_output=True, text=True, timeout=120)


def screenshot(page: pathlib.Path, shot: pathlib.Path, window="1280,1600"):
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                        f"--window-size={window}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 100, f"no screenshot {shot}"
    return shot.read_bytes()


def render(page: pathlib.Path, name: str):
    """Returns (rendered DOM, console error lines); saves a screenshot artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    dom = dump_dom(page)
    shot = ARTIFACTS / f"{name}.png"
    screenshot(page, shot)
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


MEASURE_JS = """
const out = {rows: {}, body: getComputedStyle(document.body).color};
for (const s of ["pass", "warn", "fail", "error", "skipped"]) {
  const tr = document.querySelector("tr.status-" + s);
  if (tr) out.rows[s] = {color: getComputedStyle(tr).color, background: getComputedStyle(tr).backgroundColor};
}
const num = document.querySelector("td.num"), text = document.querySelector("td:not(.num)");
out.align = {num: getComputedStyle(num).textAlign, text: getComputedStyle(text).textAlign};
out.svg = [...document.querySelectorAll("svg")].map(s => Math.round(s.getBoundingClientRect().width));
out.window = window.innerWidth;
const pre = document.createElement("pre");
pre.id = "measured";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
"""


def rgb(css):
    return tuple(int(x) for x in re.findall(r"\d+", css)[:3])


def test_compare_html_as_laid_out(run, fixtures, tmp_path):
    dumps = fixtures / H200 / "dumps"
    page = tmp_path / "compare.html"
    r = run("compare", dumps / "tinygpt_cuda_fp16_overflow", dumps / "tinygpt_cuda_fp32", "--html", page)
    assert r.returncode == 1, r.stderr
    measured_page = tmp_path / "measured.html"
    measured_page.write_text(page.read_text(encoding="utf-8").replace("</body>", f"<script>{MEASURE_JS}</script></body>"),
                             encoding="utf-8")
    dom = dump_dom(measured_page, window="640,1600")
    m = json.loads(own_text(next(n for n in parse(dom.stdout).iter("pre") if n.attrs.get("id") == "measured")))
    fail, ok = rgb(m["rows"]["fail"]["color"]), rgb(m["rows"]["pass"]["color"])
    assert fail[0] > 150 and fail[0] > 2 * max(fail[1], fail[2]), m["rows"]  # red
    assert ok[1] > ok[0] and ok[1] > ok[2], m["rows"]  # green
    assert m["rows"]["fail"]["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), m["rows"]
    assert rgb(m["body"]) not in (fail, ok)
    assert m["align"] == {"num": "right", "text": "left"}
    # the charts shrink with a 640 px window instead of keeping their natural 880 px
    assert m["svg"] and all(0 < w <= m["window"] for w in m["svg"]), m
    root = parse(dom.stdout)
    chart = next(s for s in root.iter("svg") if "Error per entry" in s.attrs.get("aria-label", ""))
    assert svg_texts(chart, "x-tick") and chart.find_all("g", "marker")
    assert "Unmatched entries" in [own_text(h) for h in root.iter("h2")]


def test_cjk_text_renders_with_a_cjk_font(run, fixtures, tmp_path):
    fc_list = shutil.which("fc-list")
    if fc_list:
        zh = subprocess.run([fc_list, ":lang=zh", "family"], capture_output=True, text=True).stdout.strip()
        assert zh, "no font covers Chinese: scripts/install-deps.sh installs fonts-wqy-microhei"
    dumps = fixtures / H200 / "dumps"
    report = tmp_path / "compare.html"
    run("compare", dumps / "tinygpt_cuda_fp32", dumps / "tinygpt_cuda_fp32", "--html", report)
    style = re.search(r"<style>.*?</style>", report.read_text(encoding="utf-8"), re.S).group(0)
    shots = {}
    for name, text in {"zhong": "中", "wen": "文", "missing": "\U0010FFFD"}.items():
        page = tmp_path / f"{name}.html"
        page.write_text(f'<!DOCTYPE html><html lang="zh"><head><meta charset="utf-8">{style}</head>'
                        f'<body><p style="font-size:120px;margin:0">{text}</p></body></html>', encoding="utf-8")
        shots[name] = screenshot(page, tmp_path / f"{name}.png", window="200,200")
    # Without a CJK font both characters are drawn as the same missing-glyph box.
    assert shots["zhong"] != shots["wen"], "中 and 文 render identically: no CJK font"
    assert shots["zhong"] != shots["missing"] and shots["wen"] != shots["missing"]


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
