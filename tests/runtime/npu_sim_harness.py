"""Running programs under `python -m banjia.npu_sim` from the tests, and reading what it reports."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "npu_sim_scripts"
EXAMPLES = REPO / "examples" / "npu_sim"
SUMMARY = re.compile(r"banjia npu_sim: aten ops on npu (\d+); compiled graph calls on npu (\d+); "
                     r"npu tensors created (\d+); peak npu memory (\d+) bytes")


def simulate(script: Path | str, *args: str, cwd: Path | None = None, pythonpath: list[Path] | None = None,
             env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    """`python -m banjia.npu_sim script args...`; script may also be an option of the simulator."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(str(p) for p in [REPO / "python", *(pythonpath or [])])
    environment.pop("TORCH_TRANSFER_TO_NPU", None)
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "banjia.npu_sim", str(script), *args], cwd=cwd or REPO,
                          env=environment, capture_output=True, text=True, timeout=timeout)


def summary(stderr: str) -> tuple[int, int, int, int]:
    """(aten ops on npu, compiled graph calls on npu, npu tensors created, peak npu memory)."""
    found = SUMMARY.search(stderr)
    assert found, stderr
    npu_ops, graphs, tensors, peak = (int(g) for g in found.groups())
    return npu_ops, graphs, tensors, peak


def checks(stdout: str) -> list[str]:
    """The names of the "ok NAME" lines a test program prints, in order."""
    return [line[3:] for line in stdout.splitlines() if line.startswith("ok ")]


def program_lines(stderr: str) -> list[str]:
    """stderr without the simulator's summary lines and torch's warnings."""
    return [line for line in stderr.splitlines()
            if line.strip() and not SUMMARY.search(line) and "CUDA uses" not in line
            and "Warning" not in line and "return func(" not in line]


def write(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
