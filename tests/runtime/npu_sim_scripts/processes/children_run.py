"""Child processes that run on npu, all started at once: multiprocessing with the spawn and
forkserver start methods, and Python subprocesses, one of which imports no torch_npu (run under
--autoload). The program itself runs no op on npu: the run passes only if the children's ops reach
the verdict. Prints "ok NAME" per check."""
import multiprocessing
import os
import subprocess
import sys

import torch
from torch.testing import assert_close


def square(queue, seed):
    import torch_npu  # noqa: F401

    x = torch.randn(4, 4, generator=torch.Generator().manual_seed(seed))
    # Lists, not tensors: torch shares a tensor's memory with the receiver only while its sender lives.
    queue.put((x.tolist(), (x.npu() @ x.npu()).relu().cpu().tolist()))


if __name__ == "__main__":
    started = []
    for method in ("spawn", "forkserver"):
        context = multiprocessing.get_context(method)
        queue = context.Queue()
        process = context.Process(target=square, args=(queue, 1))
        process.start()
        started.append((method, process, queue))
    child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_child.py")
    pythons = {mode: subprocess.Popen([sys.executable, child, mode, "2"], stdout=subprocess.PIPE, text=True)
               for mode in ("ok", "accelerator")}
    for method, process, queue in started:
        x, result = (torch.tensor(values) for values in queue.get())
        process.join()
        assert process.exitcode == 0, process.exitcode
        assert_close(result, (x @ x).relu())
        print("ok", method)
    x = torch.randn(3, 3, generator=torch.Generator().manual_seed(2))
    for mode, running in pythons.items():
        output, _ = running.communicate()
        assert running.returncode == 0, running.returncode
        assert_close(torch.tensor([float(v) for v in output.split()]), (x @ x).tanh().flatten(), atol=1e-6, rtol=0)
        print("ok subprocess", mode)
