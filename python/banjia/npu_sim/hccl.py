"""The "hccl" process-group backend of the simulator: gloo on host copies of the tensors.

`dist.init_process_group("hccl")` creates this group (registered for the npu device the way
torch_npu registers ProcessGroupHCCL). Each collective copies its npu tensors to the host, runs the
gloo collective, waits for it, and copies the results back. It is written for the simulator's
single process (world size 1) and uses only what gloo provides; reduce_scatter, which gloo lacks,
is an all_reduce followed by taking this rank's part.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist


def _done(result: Any) -> Any:
    future: torch.futures.Future[Any] = torch.futures.Future()
    future.set_result(result)
    work_from_future: Any = getattr(torch._C._distributed_c10d, "_create_work_from_future")
    return work_from_future(future)


def _host(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.cpu() if t.device.type != "cpu" else t for t in tensors]


def _write_back(targets: list[torch.Tensor], results: list[torch.Tensor]) -> None:
    for target, result in zip(targets, results):
        if target is not result:
            target.copy_(result)


class ProcessGroupHCCL(dist.ProcessGroup):
    """hccl for the simulated npu: every collective runs on gloo over host copies.

    The methods are the ones torch's PyProcessGroup trampoline calls, (tensors, options); the type
    stubs describe the Python-facing (tensor, op, timeout) forms instead, hence the overrides.
    """

    def __init__(self, store: Any, rank: int, size: int, timeout: timedelta) -> None:
        super().__init__(rank, size)  # type: ignore[call-arg]  # the stubs lack the (rank, size) form
        self._gloo: Any = dist.ProcessGroupGloo(store, rank, size, timeout)

    def getBackendName(self) -> str:
        return "hccl"

    def allreduce(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        host = _host(tensors)
        gloo_opts = dist.AllreduceOptions()
        gloo_opts.reduceOp = opts.reduceOp
        self._gloo.allreduce(host, gloo_opts).wait()
        _write_back(tensors, host)
        return _done(tensors)

    def allreduce_coalesced(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        for tensor in tensors:
            single = dist.AllreduceOptions()
            single.reduceOp = opts.reduceOp
            self.allreduce([tensor], single)
        return _done(tensors)

    def broadcast(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        host = _host(tensors)
        gloo_opts = dist.BroadcastOptions()
        gloo_opts.rootRank = opts.rootRank
        gloo_opts.rootTensor = opts.rootTensor
        self._gloo.broadcast(host, gloo_opts).wait()
        _write_back(tensors, host)
        return _done(tensors)

    def reduce(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        host = _host(tensors)
        gloo_opts = dist.ReduceOptions()
        gloo_opts.reduceOp = opts.reduceOp
        gloo_opts.rootRank = opts.rootRank
        self._gloo.reduce(host, gloo_opts).wait()
        _write_back(tensors, host)
        return _done(tensors)

    def allgather(self, output_lists: list[list[torch.Tensor]], inputs: list[torch.Tensor],  # type: ignore[override]
                  opts: Any) -> Any:
        host_outputs = [_host(outputs) for outputs in output_lists]
        self._gloo.allgather(host_outputs, _host(inputs)).wait()
        for outputs, results in zip(output_lists, host_outputs):
            _write_back(outputs, results)
        return _done(output_lists)

    def all_gather_single(self, output: torch.Tensor, input: torch.Tensor,  # type: ignore[override]
                          opts: Any) -> Any:
        self.allgather([list(output.chunk(self.size()))], [input], opts)
        return _done(output)

    def _allgather_base(self, output: torch.Tensor, input: torch.Tensor,  # type: ignore[override]
                        opts: Any) -> Any:
        return self.all_gather_single(output, input, opts)

    def reduce_scatter(self, outputs: list[torch.Tensor],  # type: ignore[override]
                       input_lists: list[list[torch.Tensor]], opts: Any) -> Any:
        for output, inputs in zip(outputs, input_lists):
            stacked = torch.stack(_host(inputs))
            single = dist.AllreduceOptions()
            single.reduceOp = opts.reduceOp
            self._gloo.allreduce([stacked], single).wait()
            output.copy_(stacked[self.rank()])
        return _done(outputs)

    def reduce_scatter_single(self, output: torch.Tensor, input: torch.Tensor, opts: Any) -> Any:
        self.reduce_scatter([output], [list(input.chunk(self.size()))], opts)
        return _done(output)

    def _reduce_scatter_base(self, output: torch.Tensor, input: torch.Tensor, opts: Any) -> Any:
        return self.reduce_scatter_single(output, input, opts)

    def barrier(self, opts: Any = None) -> Any:
        self._gloo.barrier().wait()
        return _done([])


def _create(store: Any, rank: int, size: int, timeout: timedelta) -> ProcessGroupHCCL:
    return ProcessGroupHCCL(store, rank, size, timeout)


def is_hccl_available() -> bool:
    return True


def install() -> None:
    if "hccl" not in dist.Backend.backend_list:
        dist.Backend.register_backend("hccl", _create, devices=["npu"])
    # torch_npu adds this query next to torch's is_nccl_available / is_gloo_available.
    setattr(dist, "is_hccl_available", is_hccl_available)
