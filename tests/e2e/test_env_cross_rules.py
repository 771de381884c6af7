"""`banjia env check` rules across variables: each rule of data/env/cross_rules.toml, triggered by a
small script, reports the severity, summary, source and message texts that the TOML entry gives, its
templates filled here with the values the script sets."""
import json
import os
import pathlib
import tomllib

import pytest

ENV_DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "env"


def load(name):
    with (ENV_DATA / name).open("rb") as f:
        return tomllib.load(f)


RULES = {r["id"]: r for r in load("cross_rules.toml")["cross_rule"]}
VARS = {v["name"]: v for f in ENV_DATA.glob("*.toml") for v in load(f.name).get("var", [])}
DEPRECATED = "HCCL_ASYNC_ERROR_HANDLING"
REPLACEMENT = VARS[DEPRECATED]["replacement"].split(" ")[0]

# rule id, script, line of the finding, evidence template (None: "evidence"), placeholder values
CASES = [
    ("env-alloc-both-names", "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\n"
     "export PYTORCH_ALLOC_CONF=expandable_segments:True\n", 2, None, {}),
    ("env-zero-copy-needs-expandable", "export TORCH_HCCL_ZERO_COPY=1\n", 1, None,
     {"var": "TORCH_HCCL_ZERO_COPY", "value": "1"}),
    ("env-event-timeout-order", "export HCCL_EXEC_TIMEOUT=1800\nexport HCCL_EVENT_TIMEOUT=1800\n", 2, None,
     {"longer": "HCCL_EVENT_TIMEOUT", "longer_value": "1800", "shorter": "HCCL_EXEC_TIMEOUT", "shorter_value": "1800"}),
    ("env-event-timeout-order", "export HCCL_EXEC_TIMEOUT=3000\n", 1, "evidence_default",
     {"longer": "HCCL_EVENT_TIMEOUT", "longer_value": VARS["HCCL_EVENT_TIMEOUT"]["default"],
      "shorter": "HCCL_EXEC_TIMEOUT", "shorter_value": "3000"}),
    ("env-blocking-overrides-task-queue", "export ASCEND_LAUNCH_BLOCKING=1\nexport TASK_QUEUE_ENABLE=2\n", 2, None,
     {"var": "TASK_QUEUE_ENABLE", "value": "2", "other": "ASCEND_LAUNCH_BLOCKING", "other_value": "1"}),
    ("env-needs-task-queue", "export TASK_QUEUE_ENABLE=0\nexport PER_STREAM_QUEUE=1\n", 2, None,
     {"var": "PER_STREAM_QUEUE", "value": "1", "other": "TASK_QUEUE_ENABLE", "other_value": "0"}),
    ("env-needs-task-queue", "export ASCEND_LAUNCH_BLOCKING=1\nexport TORCH_NPU_LAZY_FUSION=True\n", 2,
     ("requires_any", 0), {"var": "TORCH_NPU_LAZY_FUSION", "value": "True", "other": "ASCEND_LAUNCH_BLOCKING"}),
    ("env-oom-path-without-enable", "export OOM_SNAPSHOT_PATH=/tmp/oom\n", 1, None,
     {"var": "OOM_SNAPSHOT_PATH", "other": "OOM_SNAPSHOT_ENABLE"}),
    ("env-uncached-blocks-uce-check", "export PYTORCH_NO_NPU_MEMORY_CACHING=1\n", 1, None,
     {"var": "PYTORCH_NO_NPU_MEMORY_CACHING", "value": "1"}),
    ("env-inf-nan-needs-force-disable", "export INF_NAN_MODE_ENABLE=0\n", 1, None,
     {"var": "INF_NAN_MODE_ENABLE", "value": "0"}),
    ("env-intra-link-conflict", "export HCCL_INTRA_PCIE_ENABLE=1\nexport HCCL_INTRA_ROCE_ENABLE=1\n", 2, None,
     {"var": "HCCL_INTRA_ROCE_ENABLE", "value": "1", "other": "HCCL_INTRA_PCIE_ENABLE", "other_value": "1"}),
    ("env-cuda-ascend-conflict", "export ASCEND_RT_VISIBLE_DEVICES=0,1\nexport CUDA_VISIBLE_DEVICES=2,3\n", 2, None,
     {"var": "CUDA_VISIBLE_DEVICES", "value": "2,3", "other": "ASCEND_RT_VISIBLE_DEVICES", "other_value": "0,1",
      "other_line": "1"}),
    ("env-deprecated-and-replacement", f"export {REPLACEMENT}=1\nexport {DEPRECATED}=1\n", 2, None,
     {"var": DEPRECATED, "replacement": REPLACEMENT}),
]


def template(rule, which):
    if which is None:
        return rule["evidence"]
    if isinstance(which, tuple):
        key, index = which
        return rule[key][index]["evidence"]
    return rule[which]


def findings_of(run, path_or_env, rule_id):
    if isinstance(path_or_env, dict):
        r = run("env", "check", "-f", "json", env=path_or_env)
    else:
        r = run("env", "check", path_or_env, "-f", "json")
    assert r.returncode in (0, 1), r.stderr
    return [f for f in json.loads(r.stdout)["findings"] if f["rule"] == rule_id]


def test_every_cross_rule_has_a_case():
    assert {c[0] for c in CASES} == set(RULES)


@pytest.mark.parametrize("rule_id,script,line,which,values", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_message_texts_are_the_toml_texts(run, tmp_path, rule_id, script, line, which, values):
    rule = RULES[rule_id]
    path = tmp_path / "t.sh"
    path.write_text(script)
    found = findings_of(run, path, rule_id)
    assert len(found) == 1, found
    f = found[0]
    assert f["line"] == line
    assert f["severity"] == rule["severity"]
    assert f["message"] == rule["summary"]
    assert f["source"] == rule["source"]
    assert f["evidence"] == template(rule, which).format(**values)
    assert f["suggestion"] == rule["suggestion"].format(**values)


def test_cuda_conflict_in_the_process_environment_names_no_line(run):
    rule = RULES["env-cuda-ascend-conflict"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "CUDA_VISIBLE_DEVICES": "2,3", "ASCEND_RT_VISIBLE_DEVICES": "0,1"}
    found = findings_of(run, env, "env-cuda-ascend-conflict")
    values = {"var": "CUDA_VISIBLE_DEVICES", "value": "2,3", "other": "ASCEND_RT_VISIBLE_DEVICES", "other_value": "0,1"}
    assert [f["evidence"] for f in found] == [rule["evidence_no_line"].format(**values)]
