"""`banjia env template`: every scenario passes `banjia env check` with no warnings, every setting cites a source."""
import json
import re
import tomllib
import pathlib

import pytest

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "env" / "templates.toml"
SCENARIOS = ["training", "inference", "debug", "distributed"]


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("cards", [None, 4])
def test_template_passes_check_without_warnings(run, tmp_path, scenario, cards):
    args = ["env", "template", "--scenario", scenario]
    if cards:
        if scenario != "distributed":
            r = run(*args, "--cards", cards)
            assert r.returncode == 2 and "--cards" in r.stderr
            return
        args += ["--cards", cards]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    script = tmp_path / f"{scenario}.sh"
    script.write_text(r.stdout)
    check = run("env", "check", script, "-f", "json", "--fail-on", "warning")
    report = json.loads(check.stdout)
    assert [f for f in report["findings"] if f["severity"] != "info"] == []
    assert check.returncode == 0


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_setting_cites_its_source(run, scenario):
    extra = ["--cards", "2"] if scenario == "distributed" else []
    lines = run("env", "template", "--scenario", scenario, *extra).stdout.splitlines()
    exports = [i for i, l in enumerate(lines) if l.startswith("export ")]
    data = tomllib.loads(DATA.read_text())
    expected = [s for t in data["template"] if t["scenario"] == scenario for s in t["setting"]]
    assert len(exports) == len(expected)
    for i, setting in zip(exports, expected):
        assert lines[i - 1] == f"# source: {setting['source']}"
        assert lines[i].startswith(f"export {setting['name']}=")


def test_cards_pin_the_device_list(run):
    out = run("env", "template", "--scenario", "distributed", "--cards", "8").stdout
    m = re.search(r"^export ASCEND_RT_VISIBLE_DEVICES=(\S+)$", out, re.M)
    assert m and m.group(1) == ",".join(str(i) for i in range(8))
    assert "ASCEND_RT_VISIBLE_DEVICES=" not in run("env", "template", "--scenario", "distributed").stdout.replace("# ", "")


def test_bad_arguments(run):
    assert run("env", "template", "--scenario", "gaming").returncode == 2
    assert run("env", "template", "--scenario", "distributed", "--cards", "0").returncode == 2
    assert run("env", "template").returncode == 2


def test_template_to_file(run, tmp_path):
    out = tmp_path / "t.sh"
    r = run("env", "template", "--scenario", "inference", "-o", out)
    assert r.returncode == 0 and r.stdout == ""
    assert out.read_text().startswith("#!/usr/bin/env bash\n")
