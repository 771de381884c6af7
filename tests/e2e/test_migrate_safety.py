"""What `banjia migrate` and `scan` say about rewrites kept back for safety (docs/scan-migrate.md,
"Rewrites that must not change meaning"): cautions with the changes, the files that already support
the NPU, and checks that stay with the reason. Each program is written so that its NPU semantics are
known: what would crash, what is the GPU path."""
import json
import pathlib
import textwrap


def write(tree: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = tree / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_caution_of_a_rewritten_properties_read_is_shown_and_reported(run, tmp_path):
    src = tmp_path / "src"
    write(src, "mem.py", """
        import torch
        total = torch.cuda.get_device_properties(0).total_memory
        """)
    report = tmp_path / "changes.json"
    r = run("migrate", src, "-o", tmp_path / "out", "--report", report)
    assert r.returncode == 0, r.stderr
    summary = r.stdout + r.stderr
    assert "check the code around these changes:" in summary
    assert "[torch-cuda-device-query]" in summary and "mem.py:2" in summary
    changes = json.loads(report.read_text())["changes"]
    query = [c for c in changes if c["rule"] == "torch-cuda-device-query"]
    assert len(query) == 1 and "total_memory" in query[0]["caution"]
    assert all("caution" not in c for c in changes if c["rule"] == "import-torch-npu")


def test_capability_compared_at_import_is_left_and_the_file_still_compiles_unchanged(run, tmp_path):
    src = tmp_path / "src"
    original = write(src, "flags.py", """
        import torch
        USE_BF16 = torch.cuda.get_device_capability() >= (8, 0)
        """).read_text()
    report = tmp_path / "changes.json"
    r = run("migrate", src, "-o", tmp_path / "out", "--report", report)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "flags.py").read_text() == original
    manual = json.loads(report.read_text())["manual"]
    assert [(m["rule"], m["line"], m["fix"]) for m in manual] == [("torch-cuda-device-capability", 2, "manual")]
    assert "compared (line 2)" in manual[0]["message"]


def test_npu_aware_files_are_named_and_their_gpu_branches_stay(run, tmp_path):
    src = tmp_path / "src"
    aware = write(src, "pkg/device.py", """
        import torch
        from transformers.utils import is_torch_npu_available

        def synchronize():
            if is_torch_npu_available():
                torch.npu.synchronize()
            elif torch.cuda.is_available():
                torch.cuda.synchronize()
        """).read_text()
    write(src, "train.py", "import torch\nx = torch.ones(2).cuda()\n")
    report = tmp_path / "changes.json"
    r = run("migrate", src, "-o", tmp_path / "out", "--report", report)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "pkg" / "device.py").read_text() == aware
    assert "x = torch.ones(2).npu()" in (tmp_path / "out" / "train.py").read_text()
    doc = json.loads(report.read_text())
    assert doc["summary"]["npu_aware_files"] == 1
    assert [(g["file"], g["line"]) for g in doc["gpu_paths_kept"]] == [("pkg/device.py", 5)]
    assert "lines 7, 8" in doc["gpu_paths_kept"][0]["message"]
    assert doc["manual"] == []
    scan = json.loads(run("scan", ".", "--format", "json", cwd=src).stdout)
    assert scan["summary"]["npu_aware_files"] == ["pkg/device.py"]
    assert scan["summary"]["total"] == 1  # the .cuda() of train.py; the GPU branch is not a use


def test_a_check_selecting_code_that_stays_is_kept_with_its_reason(run, tmp_path):
    src = tmp_path / "src"
    original = write(src, "ddp.py", """
        import torch
        if torch.cuda.device_count() > 1:
            model = torch.nn.DataParallel(model)
        """).read_text()
    r = run("scan", src, "--format", "json")
    findings = {(f["rule"], f["line"]): f for f in json.loads(r.stdout)["findings"]}
    check = findings[("torch-cuda-api", 2)]
    assert check["fix"] == "manual" and "line 3" in check["message"], check
    run("migrate", src, "-o", tmp_path / "out")
    assert (tmp_path / "out" / "ddp.py").read_text() == original
