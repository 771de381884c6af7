"""Reviewed snapshots under tests/snapshots: a test compares what it got with the committed file;
BANJIA_UPDATE_SNAPSHOTS=1 writes the file instead (review the diff before committing it)."""
import os
import pathlib

SNAPSHOTS = pathlib.Path(__file__).resolve().parents[1] / "snapshots"


def assert_matches_snapshot(relative, text):
    path = SNAPSHOTS / relative
    if os.environ.get("BANJIA_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot {path}: run with BANJIA_UPDATE_SNAPSHOTS=1 and review it"
    assert path.read_text(encoding="utf-8") == text, \
        f"{path} differs from what the test got: rerun with BANJIA_UPDATE_SNAPSHOTS=1 and review the diff"
