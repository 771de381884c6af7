"""End-to-end tests of scan and migrate on configuration files (YAML, JSON, TOML).

Oracles, none of them banjia's output: the JSON and TOML files of tests/fixtures/llm-stacks/configs are
read with Python's json and tomllib, and what banjia must rewrite or report is computed from their keys
(the rules of data/rules/config.toml); YAML (no YAML parser in the test environment) has its
expectations written by hand.
"""
import collections
import json
import pathlib
import re
import tomllib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TREE = REPO / "tests" / "fixtures" / "llm-stacks"


def scan_json(run, *args):
    r = run("scan", *args, "--format", "json", "--fail-on", "none")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


DEVICE_KEYS = {"device", "device_type"}
BACKEND_KEYS = {"backend", "dist_backend", "distributed_backend"}
ENV_KEYS = {"env", "envs", "environment", "env_vars", "environment_variables", "envvars"}
CUDA_PREFIXES = ("CUDA_", "NCCL_", "TORCH_NCCL_", "PYTORCH_CUDA_", "PYTORCH_NO_CUDA_", "CUBLAS_", "CUDNN_")


def cuda_device(v):
    return isinstance(v, str) and (v == "cuda" or re.fullmatch(r"cuda:\d+", v) is not None)


def cuda_backend(v):
    if not isinstance(v, str):
        return False
    if v in ("nccl", "NCCL"):
        return True
    items = [i.split(":") for i in v.split(",")]
    return all(len(i) == 2 and i[0] in ("cpu", "cuda", "npu") and i[1] in ("gloo", "nccl", "hccl", "mpi", "ucc")
               for i in items) and any(d == "cuda" or b == "nccl" for d, b in items)


def path_text(path):
    return "".join(p if p.startswith("[") else ("." if i else "") + p for i, p in enumerate(path))


def walk(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from walk(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + (f"[{i}]",))
    else:
        yield path, node


def expected_config_findings(data):
    """{(key path, rule)} for a parsed configuration, by the rules of data/rules/config.toml."""
    out = set()
    for path, value in walk(data):
        keys = [p for p in path if not p.startswith("[")]
        key = keys[-1] if keys else ""
        off = value in (False, None, 0) or (isinstance(value, str) and value.lower() in ("", "false", "0", "no", "off", "none"))
        if cuda_device(value) and key.lower() in DEVICE_KEYS:
            out.add((path_text(path), "config-device"))
        elif cuda_backend(value) and key.lower() in BACKEND_KEYS:
            out.add((path_text(path), "config-backend"))
        elif any(p.lower() in ENV_KEYS for p in keys[:-1]) and (key.startswith(CUDA_PREFIXES) or (
                key == "name" and isinstance(value, str) and value.startswith(CUDA_PREFIXES))):
            out.add((path_text(path), "config-env-var"))
        elif (value == "fp8") or (not off and ("fp8" in key.lower() or (
                key.lower() in ("enabled", "enable") and len(keys) >= 2 and "fp8" in keys[-2].lower()))):
            out.add((path_text(path), "config-fp8"))
        elif value == "flash_attention_2":
            out.add((path_text(path), "config-flash-attention"))
        elif value == "flash_attention_3":
            out.add((path_text(path), "config-flash-attention-3"))
        elif cuda_device(value) or cuda_backend(value):
            out.add((path_text(path), "config-cuda-value"))
    return out


def reported_config_findings(doc, name):
    out = set()
    for f in doc["findings"]:
        if pathlib.Path(f["file"]).name == name and f["rule"].startswith("config-"):
            out.add((re.match(r"`([^`]*)`", f["message"]).group(1), f["rule"]))
    return out


@pytest.mark.parametrize("name,load", [("ds_config.json", json.loads), ("serve.toml", tomllib.loads)])
def test_config_findings_follow_the_keys(run, name, load):
    data = load((TREE / "configs" / name).read_text())
    doc = scan_json(run, TREE)
    assert reported_config_findings(doc, name) == expected_config_findings(data)


def test_yaml_findings_written_by_hand(run):
    doc = scan_json(run, TREE)
    assert reported_config_findings(doc, "train.yaml") == {
        ("trainer.device", "config-device"),
        ("trainer.eval_device", "config-cuda-value"),
        ("distributed.backend", "config-backend"),
        ("distributed.dist_backend", "config-backend"),
        ("model.attn_implementation", "config-flash-attention"),
        ("model.fp8.enabled", "config-fp8"),
        ("model.fp8.fp8_format", "config-fp8"),
        ("env.CUDA_VISIBLE_DEVICES", "config-env-var"),
        ("env.NCCL_IB_DISABLE", "config-env-var"),
        ("env.PYTORCH_CUDA_ALLOC_CONF", "config-env-var"),
    }
    assert reported_config_findings(doc, "pod.yaml") == {("spec.template.spec.containers[0].env[0].name", "config-env-var")}
    lines = {(f["line"], f["rule"]) for f in doc["findings"] if f["file"].endswith("train.yaml")}
    assert (6, "config-device") in lines and (19, "config-env-var") in lines  # `device: cuda`, the name of the variable
    # the configuration's files only: package.json is no configuration
    assert doc["summary"]["files"]["config"] == 4
    assert not any(f["file"].endswith("package.json") for f in doc["findings"])


def ascend_value(value):
    if cuda_device(value):
        return "npu" + value[4:]
    if value in ("nccl", "NCCL"):
        return "hccl" if value == "nccl" else "HCCL"
    return ",".join(("npu" if d == "cuda" else d) + ":" + ("hccl" if b == "nccl" else b)
                    for d, b in (i.split(":") for i in value.split(",")))


def rewritten(data):
    """The configuration as migrate must leave it: device and backend values under their keys."""
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if (k.lower() in DEVICE_KEYS and cuda_device(v)) or (k.lower() in BACKEND_KEYS and cuda_backend(v)):
                out[k] = ascend_value(v)
            else:
                out[k] = rewritten(v)
        return out
    if isinstance(data, list):
        return [rewritten(v) for v in data]
    return data


def test_migrate_rewrites_configs_in_place_of_their_values(run, tmp_path):
    out = tmp_path / "out"
    r = run("migrate", TREE, "-o", out, "--report", tmp_path / "report.json")
    assert r.returncode == 0, r.stderr
    for name, load in [("ds_config.json", json.loads), ("serve.toml", tomllib.loads)]:
        before = (TREE / "configs" / name).read_text()
        after = (out / "configs" / name).read_text()
        assert load(after) == rewritten(load(before))
        # only the lines of rewritten values differ
        changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
        assert len(before.splitlines()) == len(after.splitlines())
        assert all(re.search(r"device|backend", a) for a, _ in changed), changed
    yaml_before = (TREE / "configs" / "train.yaml").read_text()
    yaml_after = (out / "configs" / "train.yaml").read_text()
    assert yaml_after == (yaml_before.replace("  device: cuda ", "  device: npu ")
                          .replace("  backend: nccl\n", "  backend: hccl\n")
                          .replace("dist_backend: 'cpu:gloo,cuda:nccl'", "dist_backend: 'cpu:gloo,npu:hccl'"))
    assert (out / "package.json").read_bytes() == (TREE / "package.json").read_bytes()
    report = json.loads((tmp_path / "report.json").read_text())
    assert {c["rule"] for c in report["changes"] if c["file"].startswith("configs/")} == {"config-device", "config-backend"}
    assert any(m["rule"] == "config-env-var" and m["file"] == "configs/pod.yaml" for m in report["manual"])


def test_config_findings_in_every_output_format(run):
    path = TREE / "configs" / "train.yaml"
    text = run("scan", path, "--fail-on", "none")
    assert "[config-device]" in text.stdout and "configs" in text.stdout
    csv = run("scan", path, "--format", "csv", "--fail-on", "none")
    assert ",6,11,6,15,config-device," in csv.stdout
    sarif = json.loads(run("scan", path, "--format", "sarif", "--fail-on", "none").stdout)
    results = sarif["runs"][0]["results"]
    hits = [r for r in results if r["ruleId"] == "config-device"]
    assert len(hits) == 1
    region = hits[0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (6, 11)
    assert "config-device" in {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}


def test_bad_and_oversized_configs_are_per_file_statuses(run, tmp_path):
    (tmp_path / "broken.yaml").write_text("device: [cuda\n")
    (tmp_path / "broken.json").write_text('{"device": "cuda",}')
    (tmp_path / "broken.toml").write_text("device = \n")
    (tmp_path / "vocab.json").write_text(json.dumps({"device": "cuda", "tokens": ["x" * 100] * 20000}))
    (tmp_path / "ok.yaml").write_text("device: cuda\n")
    r = run("scan", tmp_path, "--format", "json", "--fail-on", "none")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    by_file = collections.defaultdict(set)
    for f in doc["findings"]:
        by_file[pathlib.Path(f["file"]).name].add(f["rule"])
    assert by_file["broken.yaml"] == {"input-error"}
    assert by_file["broken.json"] == {"input-error"}
    assert by_file["broken.toml"] == {"input-error"}
    assert by_file["vocab.json"] == {"input-skipped"}
    assert by_file["ok.yaml"] == {"config-device"}
    assert doc["summary"]["files"]["errors"] == 3 and doc["summary"]["files"]["skipped"] == 1
    assert doc["summary"]["total"] == 1  # statuses are not uses


def test_editor_settings_are_copied_never_read(run, tmp_path):
    # VS Code's settings are JSON with comments (not JSON) and configure the editor, not the program.
    src = tmp_path / "proj"
    settings = '{\n  // the interpreter\n  "python.defaultInterpreterPath": "cuda",\n  "device": "cuda",\n}\n'
    for d in (".vscode", ".idea", ".devcontainer"):
        (src / d).mkdir(parents=True)
        (src / d / "settings.json").write_text(settings)
    (src / "train.yaml").write_text("device: cuda\n")
    doc = scan_json(run, src)
    assert {pathlib.Path(f["file"]).name for f in doc["findings"]} == {"train.yaml"}
    r = run("migrate", src, "-o", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    for d in (".vscode", ".idea", ".devcontainer"):
        assert (tmp_path / "out" / d / "settings.json").read_text() == settings
    assert (tmp_path / "out" / "train.yaml").read_text() == "device: npu\n"


def test_integers_past_64_bits_are_json(run, tmp_path):
    # RFC 8259 puts no limit on a number's digits; transformers writes this model_max_length.
    text = '{"model_max_length": 1000000000000000019884624838656, "name": "12345678901234567890123", "device": "cuda"}'
    assert json.loads(text)["model_max_length"] > 2**64
    (tmp_path / "tokenizer_config.json").write_text(text)
    doc = scan_json(run, tmp_path)
    assert [f["rule"] for f in doc["findings"]] == ["config-device"]
    r = run("migrate", tmp_path, "-o", tmp_path.parent / "out-bigint")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path.parent / "out-bigint" / "tokenizer_config.json").read_text())["device"] == "npu"
