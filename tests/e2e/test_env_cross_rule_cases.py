"""One case per rule across variables of data/env/cross_rules.toml: `banjia env check` on the script
of its [cross_rule.example] reports the rule exactly once, on the example's line, with the severity and
summary of the TOML entry; all its fields equal the reviewed snapshot tests/snapshots/env/<id>.snap
(BANJIA_UPDATE_SNAPSHOTS=1 rewrites it). The rule's page shows the same example."""
import json
import pathlib
import tomllib

import pytest

from snapshot import assert_matches_snapshot

REPO = pathlib.Path(__file__).resolve().parents[2]
RULES = tomllib.loads((REPO / "data" / "env" / "cross_rules.toml").read_text(encoding="utf-8"))["cross_rule"]
IDS = [r["id"] for r in RULES]
SNAPSHOT_FIELDS = ("rule", "severity", "line", "message", "evidence", "suggestion", "source")


def test_every_rule_has_an_example_and_a_snapshot():
    assert [r["id"] for r in RULES if "example" not in r] == []
    assert sorted(p.stem for p in (REPO / "tests" / "snapshots" / "env").glob("*.snap")) == sorted(IDS)


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_fires_on_its_example(run, rule, tmp_path):
    script = tmp_path / "example.sh"
    script.write_text(rule["example"]["script"], encoding="utf-8")
    r = run("env", "check", str(script), "--format", "json", "--fail-on", "none")
    assert r.returncode == 0, r.stderr
    found = [f for f in json.loads(r.stdout)["findings"] if f["rule"] == rule["id"]]
    assert len(found) == 1, found
    f = found[0]
    assert (f["line"], f["severity"], f["message"]) == (rule["example"]["line"], rule["severity"], rule["summary"])
    snapshot = f"# {rule['id']}: its finding on the script of its [cross_rule.example]\n"
    snapshot += "".join(f"{k}: {f[k]}\n" for k in SNAPSHOT_FIELDS)
    assert_matches_snapshot(f"env/{rule['id']}.snap", snapshot)
