"""`banjia env check` end to end: files of each kind, the process environment, formats and exit codes."""
import json
import os
import pathlib
import tomllib

CASES = pathlib.Path(__file__).parent / "env_cases"


def findings(run, *args):
    r = run("env", "check", *args, "-f", "json")
    assert r.returncode in (0, 1), r.stderr
    return r, json.loads(r.stdout)["findings"]


def test_modelzoo_script_only_flags_the_deprecated_log_variable(run):
    r, fs = findings(run, CASES / "modelzoo_env_npu.sh")
    rules = sorted((f["line"], f["rule"]) for f in fs if f["severity"] != "info")
    # ASCEND_SLOG_PRINT_TO_STDOUT is deprecated in CANN 9.2.0 (docs/sources/env-vars.md, "4. CANN
    # runtime, logging and paths"); everything else is documented.
    assert rules == [(20, "env-deprecated")]
    assert r.returncode == 0


def test_dockerfile_lines_and_rules(run):
    r, fs = findings(run, CASES / "Dockerfile")
    got = sorted((f["line"], f["rule"]) for f in fs)
    assert (3, "env-cuda-name") in got
    assert (5, "env-alloc-expandable-conflict") in got
    assert (6, "env-debug-in-production") in got
    # ASCEND_LAUNCH_BLOCKING is exported inside one RUN only, so it does not override the image's TASK_QUEUE_ENABLE
    assert not [g for g in got if g[1] == "env-blocking-overrides-task-queue"]
    assert r.returncode == 1  # the allocator conflict is an error


def test_dotenv(run):
    r, fs = findings(run, CASES / "app.env")
    got = sorted((f["line"], f["rule"], f["severity"]) for f in fs)
    assert got == [(3, "env-invalid-value", "error"), (4, "env-invented-name", "warning")]


def test_fail_on_levels(run, tmp_path):
    s = tmp_path / "w.sh"
    s.write_text("export NPU_MEMCHECK=1\n")
    assert run("env", "check", s).returncode == 0
    assert run("env", "check", s, "--fail-on", "warning").returncode == 1
    e = tmp_path / "e.sh"
    e.write_text("export TASK_QUEUE_ENABLE=9\n")
    assert run("env", "check", e).returncode == 1
    assert run("env", "check", e, "--fail-on", "none").returncode == 0


def test_process_environment(run):
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "TASK_QUEUE_ENABLE": "7", "ACL_PRINT_TENSOR_STAT": "1"}
    r = run("env", "check", "-f", "json", env=env)
    assert r.returncode == 1
    rules = sorted(f["rule"] for f in json.loads(r.stdout)["findings"])
    assert rules == ["env-invalid-value", "env-invented-name"]
    clean = run("env", "check", env={"PATH": env["PATH"], "TASK_QUEUE_ENABLE": "2"})
    assert clean.returncode == 0


def test_sarif_is_valid_and_lists_rules(run):
    r = run("env", "check", CASES / "Dockerfile", "-f", "sarif")
    sarif = json.loads(r.stdout)
    assert sarif["version"] == "2.1.0"
    run0 = sarif["runs"][0]
    ids = {rule["id"] for rule in run0["tool"]["driver"]["rules"]}
    assert {res["ruleId"] for res in run0["results"]} <= ids
    locs = [res["locations"][0]["physicalLocation"]["region"]["startLine"] for res in run0["results"]]
    assert 3 in locs


def test_text_output_names_line_column_and_source(run, tmp_path):
    s = tmp_path / "t.sh"
    s.write_text("# x\n  export TASK_QUEUE_ENABLE=true\n")
    r = run("env", "check", s, "--color", "never")
    assert "2:10" in r.stdout and "source:" in r.stdout and "TASK_QUEUE_ENABLE" in r.stdout


def test_bad_input_is_one_line_and_exit_2(run, tmp_path):
    r = run("env", "check", tmp_path / "missing.sh")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "missing.sh" in r.stderr
    b = tmp_path / "bin.sh"
    b.write_bytes(b"export A=1\x00\x01")
    r = run("env", "check", b)
    assert r.returncode == 2 and "binary" in r.stderr


def test_unparseable_construct_is_reported_not_skipped(run, tmp_path):
    s = tmp_path / "q.sh"
    s.write_text("export A=1\necho \"unterminated\nexport TASK_QUEUE_ENABLE=9\n")
    r, fs = findings(run, s)
    assert [(f["line"], f["rule"]) for f in fs] == [(2, "env-parse-error")]


def test_output_file_is_written_atomically(run, tmp_path):
    out = tmp_path / "report.json"
    r = run("env", "check", CASES / "app.env", "-f", "json", "-o", out)
    assert r.returncode == 1 and r.stdout == ""
    assert json.loads(out.read_text())["command"] == "env check"


NAME_RULES = {"env-set-option-key", "env-not-an-env-var", "env-invented-name", "env-wrong-name", "env-unknown-name",
              "env-legacy-name"}


def test_explain_suggests_nothing_that_check_calls_a_wrong_name(run, tmp_path):
    """Every "did you mean" that explain offers for a names.toml entry is either a variable env check
    accepts by name, or the torch.npu.set_option call for a set_option key (never the bare key, which
    check reports as not an environment variable)."""
    repo = pathlib.Path(__file__).resolve().parents[2]
    names = tomllib.loads((repo / "data" / "env" / "names.toml").read_text())["name"]
    set_option_keys = {v["name"] for v in tomllib.loads((repo / "data" / "env" / "set_option.toml").read_text())["var"]}
    offered = 0
    for entry in names:
        r = run("env", "explain", entry["name"], "-f", "json")
        assert r.returncode == 0, r.stderr
        match = json.loads(r.stdout)["matches"][0]
        suggestions = [s for s in match.get("did_you_mean", "").split(", ") if s]
        assert len(suggestions) == len(entry.get("did_you_mean", [])), (entry["name"], suggestions)
        for wanted, shown in zip(entry["did_you_mean"], suggestions):
            offered += 1
            if wanted in set_option_keys:
                assert shown.startswith("torch.npu.set_option({") and f'"{wanted}"' in shown, (entry["name"], shown)
                continue
            assert shown == wanted
            script = tmp_path / "s.sh"
            script.write_text(f"export {shown}=1\n")
            _, fs = findings(run, script)
            assert not NAME_RULES & {f["rule"] for f in fs}, (entry["name"], shown, fs)
    assert offered >= 10


def test_npu_force_fp32_points_at_the_set_option_call(run):
    r = run("env", "explain", "NPU_FORCE_FP32", "-f", "json")
    match = json.loads(r.stdout)["matches"][0]
    assert match["did_you_mean"].split(", ") == [
        'torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})', "INF_NAN_MODE_ENABLE"]
    # check, on the same bare key, says it is not an environment variable: explain must not offer it
    assert "ACL_PRECISION_MODE (" not in match["use_instead"]
