"""data/env/compat.toml (Ascend/pytorch's compatibility tables, read by `banjia env doctor`): every row
cites its source, the fields have the shapes doctor relies on, and spot rows hold what the source says."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCE = re.compile(r"^Ascend/pytorch : COMPATIBILITY\.en\.md, .+ \(master, commit [0-9a-f]{8}\)$")


def load() -> dict[str, Any]:
    with (REPO / "data" / "env" / "compat.toml").open("rb") as f:
        return tomllib.load(f)


DOC = load()


@pytest.mark.parametrize("table", ["release", "python"])
def test_every_row_cites_its_source(table: str) -> None:
    rows = DOC[table]
    assert rows
    for row in rows:
        assert isinstance(row.get("source"), str) and SOURCE.match(row["source"]), row


def test_release_rows_have_the_fields_doctor_reads() -> None:
    seen = set()
    for row in DOC["release"]:
        assert set(row) <= {"torch_npu", "branch", "torch", "cann", "note", "source"}, row
        assert re.fullmatch(r"\d+\.\d+\.\d+(\.(post|rc)\d+)?", row["torch_npu"]), row
        assert re.fullmatch(r"\d+\.\d+\.\d+", row["torch"]), row
        assert re.fullmatch(r"\d+\.\d+\.(\d+|RC\d+)(\.\d+)?", row["cann"]), row  # "CANN " dropped
        assert row["torch_npu"] not in seen, f"torch_npu {row['torch_npu']} twice"
        seen.add(row["torch_npu"])


def test_python_rows_list_major_minor_versions() -> None:
    torches = [row["torch"] for row in DOC["python"]]
    assert len(torches) == len(set(torches))
    for row in DOC["python"]:
        assert row["python"] and all(re.fullmatch(r"3\.\d+", v) for v in row["python"]), row
        assert row.get("python_min", row["python"][0]).startswith(row["python"][0]), row


def test_spot_rows_match_the_source() -> None:
    # COMPATIBILITY.en.md, TorchNPU version mapping table: "2.1.0.post10 | v2.1.0-6.0.0 | 2.1.0 | CANN 8.0.0"
    # and "2.12.0 | v2.12.0-26.1.0 | 2.12.0 | CANN 9.1.0"; historical: "1.11.0.post3 | v1.11.0-5.0.rc2.2 |
    # 1.11.0 | CANN 6.3.RC3.1"; PyTorch and Python versions: "PyTorch 1.11.0 | Python3.7(>=3.7.5), ..."
    rows = {row["torch_npu"]: row for row in DOC["release"]}
    assert {k: rows["2.1.0.post10"][k] for k in ("branch", "torch", "cann")} == {
        "branch": "v2.1.0-6.0.0", "torch": "2.1.0", "cann": "8.0.0"}
    assert (rows["2.12.0"]["torch"], rows["2.12.0"]["cann"]) == ("2.12.0", "9.1.0")
    assert rows["1.11.0.post3"]["cann"] == "6.3.RC3.1"
    assert "1.5.0.post3" not in rows  # the source pairs it with PyTorch 1.8.1; left out (see the file's header)
    python = {row["torch"]: row for row in DOC["python"]}
    assert python["1.11.0"]["python"] == ["3.7", "3.8", "3.9", "3.10"] and python["1.11.0"]["python_min"] == "3.7.5"
    assert python["2.1.0"]["python"] == ["3.8", "3.9", "3.10", "3.11"]
