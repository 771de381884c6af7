"""`banjia env doctor` against fake CANN install trees and fake Python interpreters made here."""
import json
import os
import stat


def fake_python(bin_dir, body):
    bin_dir.mkdir(parents=True, exist_ok=True)
    p = bin_dir / "python3"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return p


def fake_cann(root, version="8.0.RC2", layout=("runtime", "compiler", "opp")):
    for d in layout:
        (root / d).mkdir(parents=True, exist_ok=True)
    info = root / "x86_64-linux" / "ascend_toolkit_install.info"
    info.parent.mkdir(parents=True, exist_ok=True)
    info.write_text(f"package_name=Ascend-cann-toolkit\nversion={version}\narch=x86_64\n")
    return root


def doctor(run, env, *extra):
    r = run("env", "doctor", "-f", "json", *extra, env=env)
    assert r.returncode in (0, 1), r.stderr
    return r, json.loads(r.stdout)


def test_healthy_install(run, tmp_path):
    home = fake_cann(tmp_path / "Ascend" / "ascend-toolkit" / "latest")
    fake_python(tmp_path / "bin", "echo python=3.10.4\necho torch=2.1.0\necho torch_npu=2.1.0.post3\n")
    env = {"PATH": str(tmp_path / "bin"), "ASCEND_HOME_PATH": str(home), "ASCEND_OPP_PATH": str(home / "opp")}
    r, rep = doctor(run, env)
    s = rep["summary"]
    assert s["cann_version"] == "8.0.RC2"
    assert (s["python_version"], s["torch_version"], s["torch_npu_version"]) == ("3.10.4", "2.1.0", "2.1.0.post3")
    assert [f for f in rep["findings"] if f["severity"] != "info"] == []
    assert r.returncode == 0


def test_broken_install_is_an_error(run, tmp_path):
    home = fake_cann(tmp_path / "cann", layout=("runtime",))
    env = {"PATH": str(tmp_path / "nobin"), "ASCEND_HOME_PATH": str(home), "ASCEND_OPP_PATH": str(tmp_path / "no-opp")}
    r, rep = doctor(run, env)
    msgs = [(f["rule"], f["severity"]) for f in rep["findings"]]
    assert ("env-doctor-layout", "error") in msgs  # compiler/ missing
    assert ("env-doctor-opp", "error") in msgs
    assert ("env-doctor-python", "warning") in msgs  # no interpreter on PATH: tolerated
    assert r.returncode == 1


def test_unset_home_and_opp(run, tmp_path):
    r, rep = doctor(run, {"PATH": str(tmp_path)})
    rules = {(f["rule"], f["severity"]) for f in rep["findings"]}
    assert ("env-doctor-home", "warning") in rules and ("env-doctor-opp", "error") in rules


def test_missing_torch_npu_and_environment_findings(run, tmp_path):
    home = fake_cann(tmp_path / "c")
    fake_python(tmp_path / "bin",
                "echo python=3.11.2\necho torch=2.4.0\necho \"torch_npu_error=ModuleNotFoundError: No module named 'torch_npu'\"\n")
    env = {"PATH": str(tmp_path / "bin"), "ASCEND_HOME_PATH": str(home), "ASCEND_OPP_PATH": str(home / "opp"),
           "TASK_QUEUE_ENABLE": "5"}
    r, rep = doctor(run, env)
    rules = [(f["rule"], f["severity"]) for f in rep["findings"]]
    assert ("env-invalid-value", "error") in rules
    assert any(f["rule"] == "env-doctor-python" and "torch_npu" in f["message"] and f["severity"] == "warning"
               for f in rep["findings"])
    assert r.returncode == 1


def test_hanging_python_is_killed_at_the_timeout(run, tmp_path):
    home = fake_cann(tmp_path / "c")
    fake_python(tmp_path / "bin", "exec /bin/sleep 600\n")
    env = {"PATH": str(tmp_path / "bin"), "ASCEND_HOME_PATH": str(home), "ASCEND_OPP_PATH": str(home / "opp")}
    r, rep = doctor(run, env, "--timeout", "0.5")
    assert any(f["rule"] == "env-doctor-python" and "did not finish" in f["message"] for f in rep["findings"])


def test_no_install_info(run, tmp_path):
    home = tmp_path / "c"
    for d in ("runtime", "compiler", "opp"):
        (home / d).mkdir(parents=True)
    r, rep = doctor(run, {"PATH": str(tmp_path), "ASCEND_HOME_PATH": str(home), "ASCEND_OPP_PATH": str(home / "opp")})
    assert any(f["rule"] == "env-doctor-cann-version" and f["severity"] == "warning" for f in rep["findings"])
    assert rep["summary"]["cann_version"] == ""
