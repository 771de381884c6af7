"""Shared pytest fixtures: where the banjia binary and the test data (tests/fixtures) are."""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

# The runtime package is imported in-process by some e2e tests; make that work without PYTHONPATH
# (scripts/test.sh sets it too, a hand-run pytest may not).
if str(REPO / "python") not in sys.path:
    sys.path.insert(0, str(REPO / "python"))


@pytest.fixture(scope="session")
def banjia_bin():
    path = os.environ.get("BANJIA_BIN", str(REPO / "build" / "src" / "banjia"))
    if not os.path.exists(path):
        pytest.fail(f"banjia binary not found at {path}; build first or set BANJIA_BIN")
    return path


@pytest.fixture(scope="session")
def fixtures():
    # The fixtures are part of the repository: a test whose file is missing fails, never skips.
    if not FIXTURES.is_dir():
        pytest.fail(f"test data not found at {FIXTURES}")
    return FIXTURES


@pytest.fixture
def run(banjia_bin):
    """run(*args, input=None, cwd=None) -> CompletedProcess with text stdout/stderr."""

    def _run(*args, input=None, cwd=None, env=None):
        return subprocess.run([banjia_bin, *map(str, args)], input=input, cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)

    return _run
