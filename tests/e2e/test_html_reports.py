"""The HTML reports read as HTML (html.parser, no browser): compare rows carry their status class and
the page's CSS colours it, unmatched entries are listed for both sides, the error chart has round
decade ticks, x ticks, an x label and a marker at the first divergence, charts are fluid (viewBox,
no pixel width), trace tables put units in their headers and align text left and numbers right, and
the CSS names CJK fonts. Expected values come from the JSON report and from the dumps written here."""
import json
import math
import re

import pytest

from html_report_dom import (css_rules, is_decade, is_number, is_one_two_five, own_text, parse, svg_texts,
                             table_with_header, tables)

H200 = "gpu-h200"
STATUSES = ("pass", "warn", "fail", "error", "skipped")
# Columns of whole numbers that count or index things (no unit to name).
INDEX_HEADERS = {"#", "rank", "slowest rank"}


def compare_page(run, a, b, tmp_path):
    page = tmp_path / "compare.html"
    r = run("compare", a, b, "--format", "json", "--html", page)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout), parse(page.read_text(encoding="utf-8"))


@pytest.fixture
def tinygpt(run, fixtures, tmp_path):
    dumps = fixtures / H200 / "dumps"
    return compare_page(run, dumps / "tinygpt_cuda_fp16_overflow", dumps / "tinygpt_cuda_fp32", tmp_path)


def colour_of(rules, selector):
    m = re.search(r"(?:^|;)color:([^;]+)", rules.get(selector, ""))
    return m.group(1) if m else None


def test_compare_status_rows_carry_their_class_and_css_colours_it(tinygpt):
    report, root = tinygpt
    _, rows = table_with_header(root, "#")
    assert len(rows) == len(report["entries"])
    for (classes, cells), entry in zip(rows, report["entries"]):
        assert cells[1][0] == entry["key"]
        assert f"status-{entry['status']}" in classes, (entry["key"], classes)
    rules = css_rules(root)
    colours = {s: colour_of(rules, f"tr.status-{s}") for s in STATUSES}
    assert all(colours.values()), colours
    assert len(set(colours.values())) == len(STATUSES), f"statuses share a colour: {colours}"
    assert colours["fail"] != colour_of(rules, "body")
    assert {e["status"] for e in report["entries"]} >= {"pass", "fail"}  # the fixture exercises both


def stats_dump(path, entries):
    """A banjia capture dump in stats mode (docs/compare.md, Dump layout): entries are (key, shape)."""
    path.mkdir()
    stats = {"max": 1.0, "min": -1.0, "mean": 0.0, "norm": 2.0, "nan": 0, "inf": 0}
    index = {"run": path.name, "format": "banjia.capture/1", "mode": "stats", "entries": [
        {"key": key, "module": key.split(".")[1], "type": "Linear", "call": 0, "kind": "forward.output",
         "dtype": "float32", "shape": shape, "stats": stats} for key, shape in entries]}
    (path / "index.json").write_text(json.dumps(index))


def test_compare_lists_unmatched_entries_of_both_sides(run, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    stats_dump(a, [("0001.shared.forward.output", [4]), ("0002.only_in_a.forward.output", [2, 3])])
    stats_dump(b, [("0001.shared.forward.output", [4]), ("0002.only_in_b.forward.output", [5])])
    report, root = compare_page(run, a, b, tmp_path)
    assert [e["key"] for e in report["unmatched"]["a"]] == ["0002.only_in_a.forward.output"]
    headings = [own_text(h) for h in root.iter("h3")]
    assert "Only in A (no entry of B matched) (1)" in headings and "Only in B (no entry of A matched) (1)" in headings
    keys = [cells[0][0] for header, rows in tables(root) if header[0][0] == "key" for _, cells in rows]
    assert keys == ["0002.only_in_a.forward.output", "0002.only_in_b.forward.output"]
    shapes = [cells[4][0] for header, rows in tables(root) if header[0][0] == "key" for _, cells in rows]
    assert shapes == ["[2, 3]", "[5]"]


def error_chart(root):
    return next(s for s in root.iter("svg") if "Error per entry" in s.attrs.get("aria-label", ""))


def test_compare_chart_y_ticks_are_decades(tinygpt):
    report, root = tinygpt
    ticks = [float(t) for t in svg_texts(error_chart(root), "y-tick")]
    assert len(ticks) >= 2 and all(is_decade(t) for t in ticks), ticks
    errors = [e["rel_l2_err"] for e in report["entries"] if e.get("rel_l2_err")]
    assert min(ticks) <= min(errors) and max(ticks) >= max(errors)


def test_compare_chart_labels_the_x_axis_and_marks_the_first_divergence(tinygpt):
    report, root = tinygpt
    svg = error_chart(root)
    x_ticks = [int(t) for t in svg_texts(svg, "x-tick")]
    n = len(report["entries"])
    assert x_ticks[0] == 0 and x_ticks[-1] <= n - 1 and len(x_ticks) >= 3
    steps = {b - a for a, b in zip(x_ticks, x_ticks[1:])}
    assert len(steps) == 1 and is_one_two_five(steps.pop()), x_ticks
    assert "entry index" in own_text(svg.find_all("text", "x-label")[0])
    modules = {e["module"] for e in report["entries"]}
    names = [n.find_all("title")[0].text() for n in svg.find_all("text", "x-name")]
    assert names and set(names) <= modules
    # the marker's line stands where index first_divergence falls between the x ticks
    div = report["first_divergence"]
    index = next(i for i, e in enumerate(report["entries"]) if e["key"] == div["key"])
    marker = svg.find_all("g", "marker")
    assert len(marker) == 1
    label = own_text(marker[0].find_all("text")[0])
    assert label.startswith(f"first divergence: #{index} ")
    tick_x = [float(t.attrs["x"]) for t in svg.find_all("text", "x-tick")]
    expected_x = tick_x[0] + index * (tick_x[1] - tick_x[0]) / (x_ticks[1] - x_ticks[0])
    assert math.isclose(float(marker[0].find_all("line")[0].attrs["x1"]), expected_x, abs_tol=0.2)


def assert_fluid(root):
    svgs = list(root.iter("svg"))
    assert svgs
    for svg in svgs:
        assert re.fullmatch(r"0 0 \d+ \d+", svg.attrs.get("viewbox", "")), svg.attrs
        assert svg.attrs.get("width", "100%").endswith("%"), svg.attrs
    assert "width:100%" in css_rules(root)["svg"]


def test_compare_chart_is_fluid(tinygpt):
    assert_fluid(tinygpt[1])


def trace_page(run, tmp_path, *args):
    page = tmp_path / "trace.html"
    r = run("trace", *args, "--html", page)
    assert r.returncode in (0, 1), r.stderr
    return parse(page.read_text(encoding="utf-8"))


def assert_units_and_alignment(root):
    """Number columns: right-aligned (class num) with a unit in the header; text columns: left-aligned."""
    checked = 0
    for header, rows in tables(root):
        for i, (name, classes) in enumerate(header):
            cells = [cells[i][0] for _, cells in rows if i < len(cells) and cells[i][0] not in ("", "-")]
            if not cells:
                continue
            numeric = all(is_number(c) for c in cells)
            assert ("num" in classes) == numeric, (name, cells[:3])
            for _, row in rows:
                if i < len(row):
                    assert ("num" in row[i][1]) == numeric, (name, row[i])
            if numeric and name not in INDEX_HEADERS:
                assert re.search(r"\((ms|%|MB|GB/s|count|×|[^)]*(ms|%|MB|GB/s|count|×)[^)]*)\)", name), f"no unit in {name!r}"
            checked += 1
    assert checked >= 3
    rules = css_rules(root)
    assert "text-align:left" in rules["td"] and "text-align:right" in rules[".num"]


def test_trace_summary_units_and_alignment(run, fixtures, tmp_path):
    root = trace_page(run, tmp_path, "summary", fixtures / H200 / "traces" / "antipattern_small_matmuls_slow.json.gz")
    assert_units_and_alignment(root)
    header, _ = table_with_header(root, "step")
    assert [h for h, _ in header][:2] == ["step", "wall (ms)"]
    header, rows = table_with_header(root, "rule")
    advice = [h for h, _ in header].index("advice")
    assert rows and all("num" not in row[advice][1] for _, row in rows)
    assert_fluid(root)


def test_trace_summary_cluster_units(run, fixtures, tmp_path):
    # two ranks of one torch_npu profiler output: a cluster (unrelated traces are not one)
    root = trace_page(run, tmp_path, "summary", fixtures / "ascend/msinsight/text/level1")
    assert_units_and_alignment(root)
    table_with_header(root, "rank")


def test_trace_compare_units(run, fixtures, tmp_path):
    traces = fixtures / H200 / "traces"
    root = trace_page(run, tmp_path, "compare", traces / "resnet50_fp32.json.gz",
                      traces / "resnet50_bf16_channels_last.json.gz")
    assert_units_and_alignment(root)
    header, _ = table_with_header(root, "op type")
    assert [h for h, _ in header][1:3] == ["baseline (ms/step)", "target (ms/step)"]


def test_bar_and_line_chart_ticks_are_round(run, fixtures, tmp_path):
    bench = fixtures / H200 / "bench"
    page = tmp_path / "bench.html"
    r = run("bench", "compare", "--batch-size", "64", bench / "resnet50_fp32.csv",
            bench / "resnet50_bf16_channels_last.csv", "--html", page)
    assert r.returncode in (0, 1), r.stderr
    root = parse(page.read_text(encoding="utf-8"))
    trace_root = trace_page(run, tmp_path, "summary", fixtures / H200 / "traces" / "resnet50_fp32.json.gz")
    svgs = list(root.iter("svg")) + list(trace_root.iter("svg"))
    checked = 0
    for svg in svgs:
        for cls in ("x-tick", "y-tick"):
            ticks = [float(t) for t in svg_texts(svg, cls)]
            if len(ticks) < 2:
                continue
            steps = [b - a for a, b in zip(ticks, ticks[1:])]
            assert all(math.isclose(s, steps[0], rel_tol=1e-6) for s in steps), (cls, ticks)
            assert is_one_two_five(steps[0]), (cls, ticks)
            assert all(abs(t / steps[0] - round(t / steps[0])) < 1e-6 for t in ticks), (cls, ticks)
            checked += 1
    assert checked >= 4, f"{checked} axes with ticks in {len(svgs)} charts"
    assert_fluid(root)


def test_report_css_lists_cjk_fonts(tinygpt):
    family = re.search(r"font-family:([^;]+)", css_rules(tinygpt[1])["body"]).group(1)
    fonts = [f.strip().strip('"') for f in family.split(",")]
    assert {"Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", "PingFang SC"} <= set(fonts)
    assert fonts[-1] == "sans-serif"
