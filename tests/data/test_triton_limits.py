"""The data of the Triton check (data/triton/ascend_limits.toml), read with tomllib: every limit is one
the checker knows how to find, has what its check needs, and cites a page of triton-ascend's docs."""
import pathlib
import re
import tomllib

REPO = pathlib.Path(__file__).resolve().parents[2]
LIMITS = tomllib.loads((REPO / "data" / "triton" / "ascend_limits.toml").read_text())["limit"]
CHECKS = {"grid-max", "keyword", "in-loop", "transpose", "dtype", "string-arg", "asm-constraints", "call"}


def test_ids_are_unique_and_checks_known():
    ids = [l["id"] for l in LIMITS]
    assert len(ids) == len(set(ids))
    assert {l["check"] for l in LIMITS} <= CHECKS


def test_each_limit_has_what_its_check_needs():
    for l in LIMITS:
        check = l["check"]
        if check == "grid-max":
            assert l["value"] == 65535, l["id"]  # UINT16_MAX, the documented coreDim bound
            continue
        assert l["names"], l["id"]
        assert all(n == "launch" or n.startswith("triton.") for n in l["names"]), l["id"]
        if check == "keyword":
            assert l["keywords"], l["id"]
        if check == "string-arg":
            assert l["values"], l["id"]
        if check == "asm-constraints":
            assert l["allowed"] and all(len(a) == 1 for a in l["allowed"]), l["id"]
        if check == "transpose":
            assert l["value"] > 0, l["id"]


def test_every_limit_cites_triton_ascend_docs():
    for l in LIMITS:
        assert l["message"], l["id"]
        for part in re.split(r"; (?=[\w.-]+/[\w.-]+ : )", l["source"]):
            assert part.startswith("Ascend/triton-ascend : docs/"), (l["id"], part)
