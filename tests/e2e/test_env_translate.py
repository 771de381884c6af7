"""`banjia env translate` and `banjia env explain` end to end."""
import json
import os
import subprocess
import tomllib
import pathlib

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "env"

GPU_SCRIPT = """#!/bin/bash
export CUDA_VISIBLE_DEVICES=0,1,2,3   # four GPUs
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,backend:cudaMallocAsync"
export NCCL_SOCKET_IFNAME=eth0
CUDA_LAUNCH_BLOCKING=0 torchrun --nproc_per_node=4 train.py --devices "$CUDA_VISIBLE_DEVICES"
"""


def test_translate_to_stdout_and_recheck(run, tmp_path):
    src = tmp_path / "run_gpu.sh"
    src.write_text(GPU_SCRIPT)
    r = run("env", "translate", src)
    assert r.returncode == 0, r.stderr
    expected = (GPU_SCRIPT.replace("CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES")
                .replace("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF")
                .replace(",backend:cudaMallocAsync", "")
                .replace("CUDA_LAUNCH_BLOCKING", "ASCEND_LAUNCH_BLOCKING"))
    assert r.stdout == expected
    assert "backend:cudaMallocAsync" in r.stderr and "NCCL_SOCKET_IFNAME" in r.stderr
    assert src.read_text() == GPU_SCRIPT  # the input is untouched
    out = tmp_path / "run_npu.sh"
    out.write_text(r.stdout)
    report = json.loads(run("env", "check", out, "-f", "json").stdout)
    assert not [f for f in report["findings"] if f["rule"] == "env-cuda-name"]
    again = run("env", "translate", out)
    assert again.stdout == r.stdout


def test_translate_reports_in_file_order(run, tmp_path):
    """Edits and notes on stderr come in the order of the file, as a compiler's diagnostics do."""
    src = tmp_path / "run_gpu.sh"
    src.write_text(GPU_SCRIPT)
    r = run("env", "translate", src)
    assert r.returncode == 0, r.stderr
    reported = r.stderr.splitlines()
    places = [tuple(int(x) for x in line.split(":")[1:3]) for line in reported]
    assert places == sorted(places), r.stderr
    # Every line holding a CUDA or NCCL name is reported, and no other.
    names = ("CUDA_", "NCCL_")
    holding = {i + 1 for i, line in enumerate(GPU_SCRIPT.splitlines()) if any(n in line for n in names)}
    assert {line for line, _ in places} == holding
    # At one place the edit comes first, then what it says about it.
    dropped = [m for m in reported if "backend:cudaMallocAsync" in m]
    assert len(dropped) == 2 and "env-cuda-name" in dropped[0] and "warning" in dropped[1]


# Names split by line continuations, in every place the shell expands one. bash is the oracle: the
# script prints what it reads under the CUDA name; the translation must print the same under the
# Ascend name, with the CUDA name unset (so a missed rename prints nothing there).
SPLIT_REFERENCES = (
    'echo "1 $PYTORCH_CUDA_\\\nALLOC_CONF"\n'
    'echo "2 ${PYTORCH_\\\nCUDA_ALLOC_CONF:-unset}"\n'
    'echo 3 $\\\nPYTORCH_CUDA_ALLOC_CONF\n'
    'echo "4 $(echo $PYTORCH_CUDA\\\n_ALLOC_CONF)"\n'
    'echo 5 `echo $PYTORCH_CUDA_ALLOC\\\n_CONF`\n'
    'echo 6 $PYTORCH_CUDA_ALLOC_CONF\\\n  x\n'
)


def test_translated_script_reads_split_references_like_bash(run, tmp_path):
    src = tmp_path / "split.sh"
    src.write_text(SPLIT_REFERENCES)
    r = run("env", "translate", src)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "split_npu.sh"
    out.write_text(r.stdout)
    base = {k: v for k, v in os.environ.items() if "ALLOC_CONF" not in k}

    def bash(script, **env):
        return subprocess.run(["bash", str(script)], env={**base, **env}, capture_output=True, text=True,
                              check=True).stdout

    original = bash(src, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    assert original.splitlines()[0] == "1 expandable_segments:True"  # bash reads the joined name
    assert original.count("expandable_segments:True") == 6
    assert bash(out, PYTORCH_NPU_ALLOC_CONF="expandable_segments:True") == original
    assert "PYTORCH_CUDA" not in r.stdout


def test_in_place_and_check_mode(run, tmp_path):
    a = tmp_path / "a.sh"
    a.write_text(GPU_SCRIPT)
    d = tmp_path / "Dockerfile"
    d.write_text("FROM x\nENV CUDA_VISIBLE_DEVICES=0\n")
    assert run("env", "translate", "--check", a, d).returncode == 1
    assert a.read_text() == GPU_SCRIPT
    assert run("env", "translate", "-i", a, d).returncode == 0
    assert "ASCEND_RT_VISIBLE_DEVICES" in a.read_text()
    assert d.read_text() == "FROM x\nENV ASCEND_RT_VISIBLE_DEVICES=0\n"
    assert run("env", "translate", "--check", a, d).returncode == 0


def test_translate_usage_errors(run, tmp_path):
    a = tmp_path / "a.sh"
    a.write_text("export A=1\n")
    assert run("env", "translate", a, a).returncode == 2
    assert run("env", "translate", tmp_path / "none.sh").returncode == 2


def test_explain_exact_with_source_locations(run):
    r = run("env", "explain", "TASK_QUEUE_ENABLE")
    assert r.returncode == 0
    assert "0, 1, 2" in r.stdout and "TASK_QUEUE_ENABLE should be 0, 1 or 2" in r.stdout
    assert "OptionsManager.cpp" in r.stdout  # the PTA-opt tag expanded


def test_explain_fuzzy_lists_every_name_containing_the_word(run):
    names = set()
    for f in DATA.glob("*.toml"):
        d = tomllib.loads(f.read_text())
        for table in ("var", "option", "name", "cuda"):
            names |= {e["name"] for e in d.get(table, []) if "ALLOC" in e["name"].upper()}
    r = run("env", "explain", "alloc", "-f", "json")
    got = {m["name"] for m in json.loads(r.stdout)["matches"]}
    assert names <= got and names


def test_explain_invented_name_and_unknown(run):
    r = run("env", "explain", "npu_force_fp32", "-f", "json")
    m = json.loads(r.stdout)["matches"][0]
    assert m["name"] == "NPU_FORCE_FP32" and m["verdict"] == "invented" and m["source"]
    r = run("env", "explain", "qqqqqqqqqqqq")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_help_shows_examples(run):
    for sub in ("check", "explain", "template", "translate", "doctor"):
        r = run("env", sub, "--help")
        assert r.returncode == 0 and "Examples:" in r.stdout and "banjia env" in r.stdout


def test_contradicting_ascend_setting_is_kept_and_reported_by_translate_and_check(run, tmp_path):
    text = ("export ASCEND_RT_VISIBLE_DEVICES=0,1\n"
            "export CUDA_VISIBLE_DEVICES=2,3\n"
            "CUDA_LAUNCH_BLOCKING=1 python train.py --gpus \"$CUDA_VISIBLE_DEVICES\"\n")
    src = tmp_path / "run.sh"
    src.write_text(text)
    r = run("env", "translate", "-i", src)
    assert r.returncode == 0, r.stderr
    # Only the unrelated CUDA_LAUNCH_BLOCKING is renamed; the contradicting device list keeps its name.
    assert src.read_text() == text.replace("CUDA_LAUNCH_BLOCKING", "ASCEND_LAUNCH_BLOCKING")
    assert f"{src}:2:8: warning: CUDA_VISIBLE_DEVICES=2,3 was not translated: line 1 sets ASCEND_RT_VISIBLE_DEVICES=0,1" in r.stderr
    c = run("env", "check", "-f", "json", src)
    fs = json.loads(c.stdout)["findings"]
    conflict = [f for f in fs if f["rule"] == "env-cuda-ascend-conflict"]
    assert [(f["line"], f["evidence"]) for f in conflict] == [
        (2, "CUDA_VISIBLE_DEVICES=2,3 and ASCEND_RT_VISIBLE_DEVICES=0,1 (line 1)")]
