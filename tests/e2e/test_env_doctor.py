"""`banjia env doctor` against fake CANN install trees and fake Python interpreters made here."""
import json
import os
import stat
import tomllib
from pathlib import Path


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


# The pairing checks: expected versions come from data/env/compat.toml read here with tomllib.
COMPAT = tomllib.loads((Path(__file__).resolve().parents[2] / "data" / "env" / "compat.toml").read_text())
RELEASE = next(r for r in COMPAT["release"] if r["torch_npu"] == "2.1.0.post10")
PYTHONS = next(p for p in COMPAT["python"] if p["torch"] == RELEASE["torch"])["python"]


def versions_python(bin_dir, python, torch, torch_npu):
    return fake_python(bin_dir, f"echo python={python}\necho torch={torch}\necho torch_npu={torch_npu}\n")


def compat_env(tmp_path, cann):
    home = fake_cann(tmp_path / "c", version=cann)
    return {"PATH": str(tmp_path / "bin"), "ASCEND_HOME_PATH": str(home), "ASCEND_OPP_PATH": str(home / "opp")}


def compat_of(rep):
    return {c["check"]: c for c in rep["summary"]["compatibility"]}


def compat_findings(rep, severity):
    return [f for f in rep["findings"] if f["rule"] == "env-doctor-compat" and f["severity"] == severity]


def test_matching_versions_are_ok(run, tmp_path):
    versions_python(tmp_path / "bin", PYTHONS[-1] + ".2", RELEASE["torch"] + "+cpu", RELEASE["torch_npu"])
    r, rep = doctor(run, compat_env(tmp_path, RELEASE["cann"]))
    checks = compat_of(rep)
    assert {k: c["status"] for k, c in checks.items()} == {"torch": "ok", "cann": "ok", "python": "ok"}
    assert checks["torch"]["expected"] == RELEASE["torch"] and checks["torch"]["source"] == RELEASE["source"]
    assert checks["cann"]["expected"] == RELEASE["cann"]
    assert compat_findings(rep, "error") == []
    assert r.returncode == 0


def test_torch_not_paired_with_torch_npu_is_an_error(run, tmp_path):
    other_torch = next(r["torch"] for r in COMPAT["release"] if r["torch"] != RELEASE["torch"])
    other_pythons = next(p for p in COMPAT["python"] if p["torch"] == other_torch)["python"]
    both = next(v for v in PYTHONS if v in other_pythons)  # so that only torch mismatches
    versions_python(tmp_path / "bin", both + ".0", other_torch, RELEASE["torch_npu"])
    r, rep = doctor(run, compat_env(tmp_path, RELEASE["cann"]))
    torch = compat_of(rep)["torch"]
    assert (torch["status"], torch["found"], torch["expected"]) == ("mismatch", other_torch, RELEASE["torch"])
    [err] = compat_findings(rep, "error")
    assert f"requires torch {RELEASE['torch']}" in err["message"] and err["source"] == RELEASE["source"]
    assert (compat_of(rep)["cann"]["status"], compat_of(rep)["python"]["status"]) == ("ok", "ok")
    assert r.returncode == 1


def test_cann_and_python_mismatches(run, tmp_path):
    other_cann = next(r["cann"] for r in COMPAT["release"] if r["cann"] != RELEASE["cann"])
    unsupported = next(f"3.{m}.0" for m in range(20, 0, -1) if f"3.{m}" not in PYTHONS)
    versions_python(tmp_path / "bin", unsupported, RELEASE["torch"], RELEASE["torch_npu"])
    r, rep = doctor(run, compat_env(tmp_path, other_cann))
    checks = compat_of(rep)
    assert (checks["cann"]["status"], checks["cann"]["expected"]) == ("mismatch", RELEASE["cann"])
    assert checks["python"]["status"] == "mismatch"
    assert checks["python"]["expected"].split(", ") == PYTHONS
    assert len(compat_findings(rep, "error")) == 2
    assert r.returncode == 1
    text = run("env", "doctor", env=compat_env(tmp_path, other_cann)).stdout
    assert f"cann    mismatch  torch_npu {RELEASE['torch_npu']} pairs with CANN {RELEASE['cann']}" in text


def test_release_outside_the_table_is_unknown(run, tmp_path):
    listed = {r["torch_npu"] for r in COMPAT["release"]}
    assert "2.1.0.post3" not in listed
    versions_python(tmp_path / "bin", "3.10.4", "2.1.0", "2.1.0.post3")
    r, rep = doctor(run, compat_env(tmp_path, "8.0.RC2"))
    checks = compat_of(rep)
    assert (checks["torch"]["status"], checks["cann"]["status"]) == ("unknown", "unknown")
    assert checks["torch"]["expected"] == ""
    assert len(compat_findings(rep, "info")) == 3 and compat_findings(rep, "error") == []
    assert r.returncode == 0


def test_python_option_probes_that_interpreter(run, tmp_path):
    versions_python(tmp_path / "bin", "3.9.1", "1.0", "1.0")  # on PATH, not probed
    chosen = versions_python(tmp_path / "venv" / "real", PYTHONS[0] + ".7", RELEASE["torch"], RELEASE["torch_npu"])
    link = tmp_path / "venv" / "python"
    link.symlink_to(chosen)
    r, rep = doctor(run, compat_env(tmp_path, RELEASE["cann"]), "--python", str(link))
    s = rep["summary"]
    assert (s["python"], s["python_resolved"]) == (str(link), os.path.realpath(chosen))
    assert s["python_version"] == PYTHONS[0] + ".7"
    assert any(f["rule"] == "env-doctor-python" and f"probed {link} ({os.path.realpath(chosen)})" in f["message"]
               for f in rep["findings"])
    assert r.returncode == 0


def test_python_option_must_name_an_executable(run, tmp_path):
    plain = tmp_path / "not-exec"
    plain.write_text("x")
    for path, problem in ((tmp_path / "missing" / "python", "does not exist"), (plain, "is not executable"),
                          (tmp_path, "is a directory, not a Python interpreter")):
        r = run("env", "doctor", "--python", path, env={"PATH": str(tmp_path)})
        assert r.returncode == 2
        assert r.stdout == "" and r.stderr == f"banjia: {path}: {problem}\n"
