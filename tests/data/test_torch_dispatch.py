"""data/dispatch (written by tools/extract_torch_dispatch.py): it is what the dispatcher of .venv's torch
says, every table cites its source, and the ops `trace ops` relies on being composite are there."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import extract_torch_dispatch as extract  # noqa: E402


def test_file_is_what_the_installed_torch_registers() -> None:
    import torch

    line = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    path = REPO / "data" / "dispatch" / f"torch-{line}.toml"
    assert path.read_text(encoding="utf-8") == extract.render(torch), "regenerate: tools/extract_torch_dispatch.py"


def test_tables_cite_sources_and_hold_known_composites() -> None:
    for path in sorted((REPO / "data" / "dispatch").glob("*.toml")):
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
        assert doc["meta"]["source"] and doc["composite"]["source"]
        comp = doc["composite"]
        # linear decomposes into addmm/matmul; detach is implemented once for all backends;
        # cudnn_batch_norm has no composite kernel (only its generated .out variant of the backward).
        assert "linear" in comp["implicit"]
        assert "detach" in comp["explicit"]
        every = set(comp["implicit"]) | set(comp["explicit"]) | set(comp["explicit_non_functional"])
        assert "cudnn_batch_norm" not in every
        assert "cudnn_batch_norm_backward.out" in every
