"""Shared by the peer benchmarks: running a command with its wall time, CPU time and peak RSS, a
memory guard and a time limit; where the peers live; Markdown helpers.

Peak RSS is the largest resident set of any one process of the command (the child and every
descendant it waited for), as GNU time reports it (`/usr/bin/time -f %M`). Not `wait4` from here:
Linux keeps a process's high-water RSS across exec, so a child forked from this Python (which may
hold a gigabyte of synthesised input) would report at least this process's RSS. The memory guard adds up the resident sets of the
whole process group every 0.2 s and kills the group past the limit, so that a peer that would take
the machine's memory (HTA on a 1 GB trace) gives a row saying so instead of an OOM kill.
"""
import argparse
import dataclasses
import os
import pathlib
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from typing import Optional, Sequence

REPO = pathlib.Path(__file__).resolve().parent.parent
CACHE = pathlib.Path(os.environ.get("BENCH_CACHE") or
                     pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "banjia-bench")
PEER_PY = CACHE / "venv" / "bin" / "python"
FIXTURES = REPO / "tests" / "fixtures"
GNU_TIME = "/usr/bin/time"


@dataclasses.dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    rc: int
    stdout: str
    stderr: str
    killed: str = ""  # why the run was stopped ("timeout after N s", "memory guard at N MB"), or ""

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.killed

    def failure(self) -> str:
        """One line saying why the run failed."""
        if self.killed:
            return self.killed
        return f"exit {self.rc}: {first_error_line(self.stderr + chr(10) + self.stdout)}"


def first_error_line(text: str) -> str:
    """The line most likely to name the problem: the last one mentioning an error, else the last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if "error" in line.lower() or "exception" in line.lower():
            return line[:200]
    return lines[-1][:200] if lines else "(no output)"


def _group_rss_mb(pgid: int) -> float:
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) != pgid:
                continue
            with open(f"/proc/{entry}/statm") as f:
                total += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def run(cmd: Sequence[str], *, cwd: Optional[pathlib.Path] = None, env: Optional[dict] = None,
        timeout: Optional[float] = None, rss_limit_mb: Optional[float] = None, stdin_text: str = "") -> Run:
    """Runs `cmd` in its own process group; returns its wall time, CPU time (user + sys of it and
    its reaped descendants), peak RSS and output."""
    full_env = dict(os.environ, **(env or {}))
    rss_file = tempfile.NamedTemporaryFile(prefix="peerlib_rss_", delete=False)
    rss_file.close()
    argv = [str(c) for c in cmd]
    if os.access(GNU_TIME, os.X_OK):
        argv = [GNU_TIME, "-f", "%M", "-o", rss_file.name, *argv]
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=full_env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        os.unlink(rss_file.name)
        return Run(wall=0.0, cpu=0.0, rss_mb=0.0, rc=127, stdout="", stderr=f"error: cannot run {cmd[0]}: {e.strerror}")
    out_chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    def drain(stream, key):
        for chunk in iter(lambda: stream.read(65536), b""):
            out_chunks[key].append(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out"), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, "err"), daemon=True)]
    for r in readers:
        r.start()
    try:
        proc.stdin.write(stdin_text.encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    killed = ""
    status = None
    while status is None:
        pid, wstatus, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            status = (wstatus, usage)
            break
        elapsed = time.perf_counter() - t0
        if timeout is not None and elapsed > timeout and not killed:
            killed = f"stopped after the {timeout:.0f} s time limit"
            os.killpg(proc.pid, signal.SIGKILL)
        elif rss_limit_mb is not None and not killed:
            rss = _group_rss_mb(proc.pid)
            if rss > rss_limit_mb:
                killed = f"stopped by the memory guard at {rss:,.0f} MB resident (limit {rss_limit_mb:,.0f} MB)"
                os.killpg(proc.pid, signal.SIGKILL)
        time.sleep(0.02 if elapsed < 1 else 0.2)
    wall = time.perf_counter() - t0
    wstatus, usage = status
    try:  # leftovers of the group (a pool that outlived its parent)
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for r in readers:
        r.join(timeout=5)
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    stderr = b"".join(out_chunks["err"]).decode(errors="replace")
    rss_kb = float(usage.ru_maxrss)
    with open(rss_file.name) as f:
        reported = f.read().split()
    os.unlink(rss_file.name)
    if reported and reported[-1].isdigit():
        rss_kb = float(reported[-1])
    if proc.returncode != 0 and reported and not reported[-1].isdigit():
        stderr += "\n" + " ".join(reported)  # GNU time's "Command exited with non-zero status N"
    return Run(wall=wall, cpu=usage.ru_utime + usage.ru_stime, rss_mb=rss_kb / 1024, rc=proc.returncode,
               stdout=b"".join(out_chunks["out"]).decode(errors="replace"), stderr=stderr, killed=killed)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def runs_text(runs: Sequence[Run], unit: float = 1.0, fmt: str = "{:.2f}") -> str:
    return " ".join(fmt.format(r.wall * unit) for r in runs)


def peer_status(name: str) -> str:
    """'ok', or the first line of why bench/peers_setup.sh could not install `name`."""
    path = CACHE / "status" / name
    if not path.exists():
        return "not installed (bench/peers_setup.sh has not run)"
    return path.read_text().strip() or "failed (no message)"


def mem_available_mb() -> float:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rel_diff(a: Optional[float], b: Optional[float]) -> float:
    """|a - b| / |b| (0 when both are 0; inf when only b is)."""
    if a is None or b is None:
        return float("nan")
    if b == 0:
        return 0.0 if a == 0 else float("inf")
    return abs(a - b) / abs(b)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def glance(*cells: object) -> None:
    """Appends one row to the summary table bench/run.sh puts at the top of BENCHMARKS.md ($GLANCE)."""
    path = os.environ.get("GLANCE")
    if path:
        with open(path, "a") as f:
            f.write("| " + " | ".join(str(c) for c in cells) + " |\n")


def argument_parser(doc: Optional[str], *, runs: int, peer_runs: int, quick_help: str, peer: str,
                    timeout: float = 1800, peer_runs_help: Optional[str] = None) -> argparse.ArgumentParser:
    """The options every peer benchmark takes: the banjia binary, runs of each side, --quick and the
    peer's time limit; each script adds its own."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--banjia", default=str(REPO / "build-release" / "src" / "banjia"))
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--peer-runs", type=int, default=peer_runs, help=peer_runs_help)
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--timeout", type=float, default=timeout, help=f"seconds per {peer} run")
    return ap
