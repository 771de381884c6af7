"""The end of a simulated run: the summary of this process and its children, and the exit status."""
from __future__ import annotations

import sys

from banjia.npu_sim import stats
from banjia.npu_sim.children import ChildResult

PREFIX = "banjia npu_sim"


def _cuda_lines(children: list[ChildResult]) -> list[str]:
    """The first CUDA use of each process that used CUDA, this one first, each text once (a
    DataLoader worker's use is raised again in the program)."""
    lines: list[str] = []
    if stats.COUNTS.cuda_uses:
        lines.append(stats.COUNTS.cuda_uses[0])
    for child in children:
        if child.cuda_uses and child.cuda_uses[0] not in lines:
            lines.append(f"{child.cuda_uses[0]} (in child process {child.pid}: {child.command})")
    return lines


def _summary_lines(children: list[ChildResult]) -> list[str]:
    c = stats.COUNTS
    ops = c.npu_ops + sum(child.npu_ops for child in children)
    graphs = c.npu_graphs + sum(child.npu_graphs for child in children)
    tensors = c.npu_tensors + sum(child.npu_tensors for child in children)
    peak = max([c.run_peak_bytes, *(child.peak_bytes for child in children)])
    uses = len(c.cuda_uses) + sum(len(child.cuda_uses) for child in children)
    queries = c.cuda_queries + sum(child.cuda_queries for child in children)
    lines = [
        f"{PREFIX}: aten ops on npu {ops}; compiled graph calls on npu {graphs}; npu tensors created "
        f"{tensors}; peak npu memory {peak} bytes",
        f"{PREFIX}: CUDA uses {uses}; CUDA availability queries answered False {queries}",
    ]
    if children:
        ran = sum(1 for child in children if child.npu_ops or child.npu_graphs)
        lines.append(f"{PREFIX}: child processes {len(children)} (counted above), {ran} of them ran ops on npu")
    return lines


def judge(status: int, children: list[ChildResult]) -> int:
    """Prints the verdict's lines on stderr and returns the run's exit status."""
    cuda = _cuda_lines(children)
    failed = [child for child in children if child.error]
    for line in cuda:
        print(line, file=sys.stderr)
    for child in failed:
        print(f"{PREFIX}: child process {child.pid} ({child.command}) failed: {child.error}", file=sys.stderr)
    for line in _summary_lines(children):
        print(line, file=sys.stderr)
    if cuda:
        return 1
    if status != 0:
        return status
    if failed:
        return 1
    if stats.COUNTS.npu_ops == 0 and stats.COUNTS.npu_graphs == 0 and \
            not any(child.npu_ops or child.npu_graphs for child in children):
        print(f"{PREFIX}: the program ran no op on npu (everything ran on the CPU)", file=sys.stderr)
        return 1
    return 0
