"""`python -m banjia.npu_sim [--autoload] --each SCRIPT...`: several small programs, one interpreter.

Starting Python and importing torch costs seconds; a rule's before/after example runs in
milliseconds. --each runs the programs one after another in this interpreter, each as `python
SCRIPT` would (a fresh `__main__`, its own `sys.argv` and `sys.path[0]`), with the counts of the run
started afresh for each, and prints one verdict line per program:

    banjia npu_sim: each a.py: ok (aten ops on npu 12)
    banjia npu_sim: each b.py: CUDA used: b.py:3: torch.cuda.synchronize
    banjia npu_sim: each c.py: failed (exit 1)
    banjia npu_sim: each d.py: ran no op on npu

Exit status: 0 when every program is ok, 1 otherwise. The programs share the interpreter (torch's
global state, imported modules): this is for small independent programs such as rule examples, not
for training runs, which `python -m banjia.npu_sim SCRIPT` runs alone, with their child processes.
"""
from __future__ import annotations

import os
import sys
from typing import Callable

PREFIX = "banjia npu_sim"


def _verdict(name: str, status: int, ops_before: int, graphs_before: int) -> tuple[bool, str]:
    from banjia.npu_sim import stats

    counts = stats.COUNTS
    ops, graphs = counts.npu_ops - ops_before, counts.npu_graphs - graphs_before
    if counts.cuda_uses:
        use = counts.cuda_uses[0].removeprefix(f"{PREFIX}: ")
        return False, f"{PREFIX}: each {name}: {use}"
    if status != 0:
        return False, f"{PREFIX}: each {name}: failed (exit {status})"
    if ops == 0 and graphs == 0:
        return False, f"{PREFIX}: each {name}: ran no op on npu"
    return True, f"{PREFIX}: each {name}: ok (aten ops on npu {ops}, compiled graph calls {graphs})"


def run_each(scripts: list[str], run_program: Callable[[str], int]) -> int:
    """Runs each script with run_program(path) -> exit status; prints one verdict line per script."""
    from banjia.npu_sim import frames, stats

    all_ok = True
    for script in scripts:
        path = os.path.abspath(script)
        sys.argv = [script]
        sys.path[0] = os.path.dirname(os.path.realpath(script))
        frames.set_script_directory(os.path.dirname(path))
        stats.COUNTS.cuda_uses = []
        ops, graphs = stats.COUNTS.npu_ops, stats.COUNTS.npu_graphs
        status = run_program(path)
        sys.stdout.flush()
        ok, line = _verdict(script, status, ops, graphs)
        print(line, file=sys.stderr)
        all_ok = all_ok and ok
    stats.COUNTS.cuda_uses = []
    return 0 if all_ok else 1

