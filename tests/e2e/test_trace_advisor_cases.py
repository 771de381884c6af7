"""One case per advisor rule of data/trace/advisors.toml: on the tiny trace advisor_traces.py builds
for it, `banjia trace summary` reports exactly one finding of the rule, in the step the builder
expects, with the severity and message of the TOML entry and the evidence its `[rule.example]` shows
on its documentation page; all its fields equal the reviewed snapshot tests/snapshots/trace/<id>.snap
(BANJIA_UPDATE_SNAPSHOTS=1 rewrites it)."""
import json
import pathlib
import tomllib

import pytest

from advisor_traces import BUILDERS
from snapshot import assert_matches_snapshot

REPO = pathlib.Path(__file__).resolve().parents[2]
RULES = tomllib.loads((REPO / "data" / "trace" / "advisors.toml").read_text(encoding="utf-8"))["rule"]
IDS = [r["id"] for r in RULES]
SNAPSHOT_FIELDS = ("rule", "severity", "message", "evidence", "est_saving_us", "suggestion", "source")


def test_every_rule_has_a_trace_and_every_trace_a_rule():
    assert sorted(BUILDERS) == sorted(IDS)


def test_every_rule_has_a_snapshot_and_every_snapshot_a_rule():
    assert sorted(p.stem for p in (REPO / "tests" / "snapshots" / "trace").glob("*.snap")) == sorted(IDS)


def findings_on(run, trace, tmp_path, rule_id):
    # torch_npu's bare array is read as an NPU profile under the name torch_npu gives it.
    path = tmp_path / ("trace_view.json" if isinstance(trace, list) else "trace.json")
    path.write_text(json.dumps(trace), encoding="utf-8")
    r = run("trace", "summary", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    return [f for f in json.loads(r.stdout)["findings"] if f["rule"] == rule_id]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_fires_on_its_trace(run, rule, tmp_path):
    assert rule["id"] in BUILDERS, "advisor_traces.py builds no trace for this rule"
    trace, step, text = BUILDERS[rule["id"]]()
    found = findings_on(run, trace, tmp_path, rule["id"])
    assert len(found) == 1, found
    f = found[0]
    assert f["severity"] == rule["severity"]
    assert f["message"].startswith(rule["message"])
    assert text in f["message"] + " " + f["evidence"]
    if step:
        assert f["message"].endswith(" " + step) and f["evidence"].startswith(step + ": ")
    assert f["evidence"] == rule["example"]["evidence"], "the rule's documented example is out of date"
    snapshot = f"# {rule['id']}: its finding on its trace (tests/e2e/advisor_traces.py)\n"
    snapshot += "".join(f"{k}: {f[k]}\n" for k in SNAPSHOT_FIELDS)
    assert_matches_snapshot(f"trace/{rule['id']}.snap", snapshot)
