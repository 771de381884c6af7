"""Power sampling for banjia.bench: polls nvidia-smi or npu-smi in a background thread.

A missing tool, a failing tool or unreadable output never raises: the recorder records power as null
and says why in its notes.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import threading
from typing import Callable


def parse_nvidia_smi(text: str) -> float | None:
    for line in text.splitlines():
        try:
            return float(line.strip())
        except ValueError:
            continue  # "[N/A]" or a message: no sample
    return None


def parse_npu_smi(text: str, index: int) -> float | None:
    """Power(W) of NPU `index` from `npu-smi info`. Each NPU has two table rows; the first starts with
    "NPU-id Name" and holds Power(W) in the third cell, under the header's "Power(W)" word. The id is
    the physical one, so a logical index is mapped through ASCEND_RT_VISIBLE_DEVICES when it is set."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.strip().startswith("|")]
    header = next((r for r in rows if len(r) >= 3 and "Power(W)" in r[2].split()), None)
    if header is None:
        return None
    col = header[2].split().index("Power(W)")
    powers: dict[str, float | None] = {}
    for r in rows[rows.index(header) + 1:]:
        first = r[0].split()
        if len(r) < 3 or len(first) < 2 or not first[0].isdigit():
            continue
        if first[0] in powers or not first[1][:1].isalnum() or first[1].isdigit():
            break  # the process table below reuses the layout ("NPU-id Chip-id"): stop there
        try:
            powers[first[0]] = float(r[2].split()[col])
        except (IndexError, ValueError):
            powers[first[0]] = None
    visible = [v.strip() for v in os.environ.get("ASCEND_RT_VISIBLE_DEVICES", "").split(",") if v.strip()]
    physical = visible[index] if index < len(visible) else str(index)
    if physical in powers:
        return powers[physical]
    return next(iter(powers.values())) if len(powers) == 1 else None


class PowerSampler:
    """Polls a vendor tool in a background thread while the measured steps run."""

    def __init__(self, tool: str, device_index: int, interval_s: float) -> None:
        self.tool, self.interval_s = tool, interval_s
        self.samples: list[float] = []
        self.errors = 0
        self._parse: Callable[[str], float | None]
        if tool == "nvidia-smi":
            self._cmd = [tool, "--query-gpu=power.draw", "--format=csv,noheader,nounits", "-i", str(device_index)]
            self._parse = parse_nvidia_smi
        else:
            self._cmd = [tool, "info"]
            self._parse = lambda text: parse_npu_smi(text, device_index)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="banjia-power", daemon=True)

    def _sample(self) -> None:
        try:
            out = subprocess.run(self._cmd, capture_output=True, text=True, timeout=5, check=True).stdout
            watts = self._parse(out)
        except (OSError, subprocess.SubprocessError):
            watts = None
        if watts is None or not math.isfinite(watts) or watts < 0:
            self.errors += 1
        else:
            self.samples.append(watts)

    def _loop(self) -> None:
        while True:
            self._sample()
            if self._stop.wait(self.interval_s):
                return

    def __enter__(self) -> PowerSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if not self.samples:  # a very short run: one sample after the fact is better than none
            self._sample()


def power_tool(power: str | None, device_type: str) -> tuple[str | None, str | None]:
    """(tool to poll or None, note saying why power is not sampled or None)."""
    if not power:  # None (or False): power is not wanted
        return None, None
    if power == "auto":
        power = {"cuda": "nvidia-smi", "npu": "npu-smi"}.get(device_type)
        if power is None:
            return None, "power not sampled: no power tool for cpu"
    if power not in ("nvidia-smi", "npu-smi"):
        raise ValueError(f"banjia.bench: power must be 'auto', 'nvidia-smi', 'npu-smi' or None, not {power!r}")
    if shutil.which(power) is None:
        return None, f"power not sampled: {power} not found on PATH"
    return power, None
