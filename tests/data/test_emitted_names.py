"""Every torch_npu / torch.npu / torch.accelerator / torch.amp name scan and migrate can write, and every
environment variable env can suggest, is real: checked by tools/check_emitted_names.py against the API
lists of data/api and the variables of data/env. The checker must also catch a fake name put into a
copy of the data."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import check_emitted_names as checker  # noqa: E402


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    for sub in ("rules", "env", "api", "shims"):
        shutil.copytree(REPO / "data" / sub, tmp_path / sub)
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_every_emitted_name_is_real() -> None:
    report = checker.check(REPO / "data")
    assert report.problems == []
    # The rules name well over a hundred torch.npu APIs (torch-cuda-api alone lists 56 names).
    assert report.checked > 200


def test_names_only_newer_releases_have_are_reported_with_their_rule() -> None:
    report = checker.check(REPO / "data")
    partial = {name: releases for name, releases in report.only_some_releases.items()}
    external = [n for n in partial if n.endswith("rule cuda-external-stream (replacement): torch.npu.ExternalStream")]
    assert len(external) == 1
    assert partial[external[0]] == ["7.2.0.1-pytorch2.1.0", "26.1.0-pytorch2.12.0"]
    # Every other partial name comes from a rule that declares min_torch_npu.
    assert all("cuda-external-stream" in n for n in partial)


def test_fake_name_in_a_rule_list_is_reported(data_copy: Path) -> None:
    edit(data_copy / "rules" / "torch_cuda.toml", '"torch.cuda.Stream", ', '"torch.cuda.Stream", "torch.cuda.banjia_fake", ')
    problems = checker.check(data_copy).problems
    assert len(problems) == 1
    assert "rule torch-cuda-api (rewrite of torch.cuda.banjia_fake): torch.npu.banjia_fake" in problems[0]
    assert "torch_npu.npu has no banjia_fake" in problems[0]


@pytest.mark.parametrize("old,new,expected", [
    ('replacement = "torch_npu.profiler.ProfilerActivity.NPU"', 'replacement = "torch_npu.profiler.ProfilerActivity.GPU"',
     "torch_npu.profiler.ProfilerActivity has no value GPU"),
    ('replacement = "torch_npu.utils.cpp_extension.NpuExtension"', 'replacement = "torch_npu.utils.cpp_extension.NpuExt"',
     "torch_npu.utils.cpp_extension has no NpuExt"),
    ('rewrite = { kind = "rename-last", to = "is_hccl_available" }', 'rewrite = { kind = "rename-last", to = "is_xccl_ok" }',
     "torch.distributed.is_xccl_ok: no module torch"),
    ('rewrite = { kind = "rename-attribute", to = "is_npu" }', 'rewrite = { kind = "rename-attribute", to = "is_npu2" }',
     "torch.Tensor.is_npu2 is neither generated nor patched"),
    ('rewrite = { kind = "replace-in-string", from = "nccl", to = "hccl" }',
     'rewrite = { kind = "replace-in-string", from = "nccl", to = "xccl" }', "backend 'xccl' is not registered"),
    ('"torch.cuda.current_device" = "torch.accelerator.current_device_index"',
     '"torch.cuda.current_device" = "torch.accelerator.current_device_idx_"',
     "rule torch-cuda-api (target accelerator): torch.accelerator.current_device_idx_: torch.accelerator has no current_device_idx_"),
])
def test_fake_rewrite_or_replacement_is_reported(data_copy: Path, old: str, new: str, expected: str) -> None:
    for path in sorted((data_copy / "rules").glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        if old in text:
            path.write_text(text.replace(old, new, 1), encoding="utf-8")
            break
    else:
        pytest.fail(f"{old!r} is in no rule file")
    problems = checker.check(data_copy).problems
    assert any(expected in p for p in problems), problems


def test_names_a_shim_uses_are_checked(data_copy: Path) -> None:
    # A shim reaches torch_npu through the names its imports bind, from-imports and getattr.
    (data_copy / "shims" / "extra_npu.py").write_text(
        "import torch_npu as tnpu\n"
        "from torch_npu.optim import NpuFusedAdam, NpuFusedAdamQ\n"
        "def f(x):\n"
        "    import torch\n"
        "    y = tnpu.npu_rms_norm(x, x)[0] if torch.npu.is_available() else x\n"
        "    return tnpu.npu_banjia_fake(y), getattr(tnpu, 'npu_rotary_mul'), getattr(torch_npu, 'npu_swiglu2')\n",
        encoding="utf-8")
    emitted = {e.name for e in checker.shim_emissions(data_copy / "shims") if e.origin == "shims/extra_npu.py"}
    assert emitted == {"torch_npu", "torch_npu.optim.NpuFusedAdam", "torch_npu.optim.NpuFusedAdamQ",
                       "torch_npu.npu_rms_norm", "torch.npu.is_available", "torch.npu", "torch_npu.npu_banjia_fake",
                       "torch_npu.npu_rotary_mul", "torch_npu.npu_swiglu2"}
    problems = checker.check(data_copy).problems
    assert sorted(p.split(" (torch_npu")[0] for p in problems) == [
        "shims/extra_npu.py: torch_npu.npu_banjia_fake: torch_npu has no npu_banjia_fake",
        "shims/extra_npu.py: torch_npu.npu_swiglu2: torch_npu has no npu_swiglu2",
        "shims/extra_npu.py: torch_npu.optim.NpuFusedAdamQ: torch_npu.optim has no NpuFusedAdamQ",
    ]


def test_min_torch_npu_must_be_declared_and_agree_with_the_releases(data_copy: Path) -> None:
    rules = data_copy / "rules" / "torch_cuda.toml"
    edit(rules, 'min_torch_npu = "26.2.0"\n', "")
    assert any("the rule must say from which release" in p for p in checker.check(data_copy).problems)
    rules.write_text(rules.read_text(encoding="utf-8").replace(
        'replacement = "torch.npu.ExternalStream"\n',
        'replacement = "torch.npu.ExternalStream"\nmin_torch_npu = "26.1.0"\n'),
        encoding="utf-8")
    assert any("min_torch_npu = 26.1.0 contradicts torch_npu 26.1.0-pytorch2.12.0" in p
               for p in checker.check(data_copy).problems)


def test_a_claimed_absence_is_checked_too(data_copy: Path) -> None:
    # torch-cuda-nccl says "no torch.npu.nccl": if a release had it, the text would be wrong.
    api = data_copy / "api" / "torch_npu-26.2.0-beta.1-pytorch2.13.0.toml"
    text = api.read_text(encoding="utf-8")
    start = text.index('[module."torch_npu.npu"]')
    names_at = text.index("names = [", start) + len("names = [")
    api.write_text(text[:names_at] + '"nccl", ' + text[names_at:], encoding="utf-8")
    assert any("torch.npu.nccl exists, but the text says it does not" in p for p in checker.check(data_copy).problems)


@pytest.mark.parametrize("file,old,new,expected", [
    ("templates.toml", 'name = "HCCL_DIAGNOSE_ENABLE"', 'name = "HCCL_DIAGNOSE_ENABLED"',
     "HCCL_DIAGNOSE_ENABLED: not a variable"),
    ("cuda.toml", 'ascend = "ASCEND_LAUNCH_BLOCKING"', 'ascend = "NPU_LAUNCH_BLOCKING"',
     "NPU_LAUNCH_BLOCKING: not a variable"),
    ("advisor.toml", "raise ACLNN_CACHE_LIMIT, e.g. to 100000", "raise ACLNN_CACHE_SIZE, e.g. to 100000",
     "ACLNN_CACHE_SIZE: not a variable"),
    ("names.toml", 'did_you_mean = ["ACL_OP_SELECT_IMPL_MODE"]', 'did_you_mean = ["ACL_OP_SELECT_MODE"]',
     "ACL_OP_SELECT_MODE: not a variable"),
])
def test_invented_environment_variable_is_reported(data_copy: Path, file: str, old: str, new: str, expected: str) -> None:
    edit(data_copy / "env" / file, old, new)
    problems = checker.check(data_copy).problems
    assert len(problems) == 1 and expected in problems[0], problems


def test_a_set_option_key_is_no_environment_variable(data_copy: Path) -> None:
    # ACL_PRECISION_MODE is a torch.npu.set_option key (data/env/set_option.toml): a template may not set it.
    edit(data_copy / "env" / "templates.toml", 'name = "HCCL_DIAGNOSE_ENABLE"', 'name = "ACL_PRECISION_MODE"')
    assert any("ACL_PRECISION_MODE: a torch.npu.set_option key" in p for p in checker.check(data_copy).problems)


def test_env_suggestions_are_all_enumerated() -> None:
    # Independent count of what env can suggest: the 9 CUDA equivalents, 27 template settings,
    # 5 advisor variables (each named again in its suggestion) and 14 did-you-mean names.
    _, variables = checker.env_emissions(REPO / "data" / "env")
    by_origin = {o: sum(1 for v in variables if v.origin.startswith(o)) for o in
                 ("cuda.toml", "templates.toml", "advisor.toml", "names.toml")}
    assert by_origin == {"cuda.toml": 9, "templates.toml": 27, "advisor.toml": 10, "names.toml": 14}


def test_rewrite_targets_follow_migrates_component_mapping() -> None:
    emitted = {e.name for e in checker.rule_emissions(REPO / "data" / "rules")}
    for name in ("torch.npu.synchronize", "torch.npu.amp.GradScaler", "torch_npu.profiler.schedule",
                 "torch_npu.profiler.ProfilerActivity.NPU", "torch.distributed.is_hccl_available", "torch_npu"):
        assert name in emitted
    # torch.autograd.profiler.ProfilerActivity.CUDA does not start with the rule's `from`: migrate
    # leaves it, so no torch_npu name is derived from it.
    assert not any(re.search(r"torch_npu\.autograd", n) for n in emitted)


def test_banjias_own_catalogue_emits_the_same_and_passes(banjia_bin: str) -> None:
    listed = subprocess.run([banjia_bin, "scan", "--list-rules", "--format", "json"], capture_output=True, text=True,
                            timeout=60, check=True)
    rules = json.loads(listed.stdout)
    toml = {rule["id"]: rule for _, rule in checker.rules_in(REPO / "data" / "rules")}
    assert [r["id"] for r in rules] == list(toml)
    for r in rules:
        t = toml[r["id"]]
        assert r["rewrite"] == t.get("rewrite", None) or r["rewrite"] == {"from": "", "to": "", **t["rewrite"]}
        assert r["match"]["names"] == t["match"].get("names", [])
        assert r["min_torch_npu"] == t.get("min_torch_npu", "")
        suffix = f" (torch_npu {t['min_torch_npu']} or newer)" if "min_torch_npu" in t else ""
        assert r["replacement"] == (t["replacement"] + suffix if "replacement" in t else None)
        assert sorted(r.get("target", {})) == sorted(t.get("target", {}))
        for name, form in r.get("target", {}).items():
            renames = t["target"][name].get("rewrite", {}).get("names", {})
            assert (form["rewrite"] or {}).get("names", {}) == renames
    report = checker.check(REPO / "data", [("banjia --list-rules", r) for r in rules])
    assert report.problems == []


def cpp_string_literals() -> list[tuple[str, str]]:
    """(file, literal) for the string literals of the C++ that writes findings, rewrites and env advice."""
    out = []
    for sub in ("rules", "scan", "migrate", "env"):
        for path in sorted((REPO / "src" / sub).rglob("*.cpp")):
            out += [(path.name, m) for m in re.findall(r'"((?:[^"\\\n]|\\.)*)"', path.read_text(encoding="utf-8"))]
    return out


def test_names_hard_coded_in_the_cpp_are_real() -> None:
    apis = checker.load_apis(REPO / "data" / "api")
    documented = set(checker.documented_variables(REPO / "data" / "env"))
    env = REPO / "data" / "env"
    cuda = {c["name"] for c in checker.load_toml(env / "cuda.toml")["cuda"]}
    flagged = {n["name"] for n in checker.load_toml(env / "names.toml")["name"]}  # names env reports as wrong
    macros = {"PYBIND11_MODULE", "TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL"}
    # what torchrun sets in each worker (pytorch docs: elastic/run.html, "Environment Variables"), which
    # migrate --distributed reads
    launcher = {"LOCAL_RANK"}
    literals = cpp_string_literals()
    api_names = [(f, n) for f, lit in literals for n in checker._names_in(lit)]
    assert ("python_rewriter.cpp", "torch_npu") in api_names  # the `import torch_npu` migrate inserts
    for file, name in api_names:
        assert apis[-1].missing(name) is None, f"src/*/{file}: {name}"
    env_names = [(f, n, lit) for f, lit in literals for n in checker.ENV_NAME.findall(lit)]
    assert ("doctor.cpp", "ASCEND_HOME_PATH") in {(f, n) for f, n, _ in env_names}
    for file, name, lit in env_names:
        assert name in documented | cuda | flagged | macros | launcher, f"src/*/{file}: {name} in {lit!r}"
