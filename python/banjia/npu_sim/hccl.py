"""The "hccl" process-group backend of the simulator: gloo on host copies of the tensors.

`dist.init_process_group("hccl")` creates this group (registered for the npu device the way
torch_npu registers ProcessGroupHCCL), in one process or in several (one per rank). Each collective
copies its npu tensors to contiguous host tensors, runs the gloo collective, waits for it, and
copies the results back; the returned work is already complete. Where gloo lacks an operation it is
built from gloo's: ReduceOp.AVG is a sum divided by the world size, reduce-scatter is an all-reduce
of which each rank keeps its part, the coalesced forms are one collective per tensor.

The methods are those torch calls on a Python process group: the ones torch's PyProcessGroup
trampoline forwards from C++ (allreduce, broadcast, allgather, all_to_all_single, ...) and the ones
torch.distributed calls directly on the group object (reduce, _allgather_base, gather, ...). They
take (tensors, options) as the trampoline passes them; the type stubs describe the Python-facing
(tensor, op, timeout) forms instead, hence the overrides.
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
    return [t.detach().cpu().contiguous() for t in tensors]


def _write_back(targets: list[torch.Tensor], results: list[torch.Tensor]) -> None:
    for target, result in zip(targets, results):
        if target is not result:
            target.copy_(result)


def _is_average(op: Any) -> bool:
    return bool(op == dist.ReduceOp.AVG)


def _summing(op: Any) -> Any:
    return dist.ReduceOp.SUM if _is_average(op) else op


class ProcessGroupHCCL(dist.ProcessGroup):
    """hccl for the simulated npu: every collective runs on gloo over host copies."""

    def __init__(self, store: Any, rank: int, size: int, timeout: timedelta) -> None:
        super().__init__(rank, size)  # type: ignore[call-arg]  # the stubs lack the (rank, size) form
        self._gloo: Any = dist.ProcessGroupGloo(store, rank, size, timeout)  # None once shut down
        self._group_name = ""
        self._group_desc = ""

    def getBackendName(self) -> str:
        return "hccl"

    # torch registers no per-device backend on a process group written in Python (it is its own
    # backend), yet `init_process_group(..., device_id=...)` asks the group for the backend of that
    # device to connect it eagerly: the group answers for every device, and splitting (which eager
    # connection needs) is not supported.
    supports_splitting = False
    supports_coalescing = False

    def _get_backend(self, device: Any) -> "ProcessGroupHCCL":  # type: ignore[override]
        return self

    # A Python process group has no C++ backend object to keep its name (`group.group_name`, which
    # DeviceMesh uses); torch's trampoline forwards these four to Python.
    def getGroupName(self) -> str:
        return self._group_name

    def setGroupName(self, name: str) -> None:
        self._group_name = name

    def getGroupDesc(self) -> str:
        return self._group_desc

    def setGroupDesc(self, description: str) -> None:
        self._group_desc = description

    def _reduce_host(self, host: list[torch.Tensor], op: Any) -> None:
        """Sum or the other ReduceOps of host tensors across ranks, in place."""
        options = dist.AllreduceOptions()
        options.reduceOp = _summing(op)
        self._gloo.allreduce(host, options).wait()
        if _is_average(op):
            for tensor in host:
                tensor.div_(self.size())

    def allreduce(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        host = _host(tensors)
        self._reduce_host(host, opts.reduceOp)
        _write_back(tensors, host)
        return _done(tensors)

    def allreduce_coalesced(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        for tensor in tensors:
            host = _host([tensor])
            self._reduce_host(host, opts.reduceOp)
            _write_back([tensor], host)
        return _done(tensors)

    def broadcast(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        host = _host(tensors)
        options = dist.BroadcastOptions()
        options.rootRank = opts.rootRank
        options.rootTensor = opts.rootTensor
        self._gloo.broadcast(host, options).wait()
        _write_back(tensors, host)
        return _done(tensors)

    def reduce(self, tensors: list[torch.Tensor], opts: Any) -> Any:  # type: ignore[override]
        host = _host(tensors)
        options = dist.ReduceOptions()
        options.reduceOp = _summing(opts.reduceOp)
        options.rootRank = opts.rootRank
        self._gloo.reduce(host, options).wait()
        if _is_average(opts.reduceOp) and self.rank() == opts.rootRank:
            for tensor in host:
                tensor.div_(self.size())
        _write_back(tensors, host)
        return _done(tensors)

    def allgather(self, output_lists: list[list[torch.Tensor]], inputs: list[torch.Tensor],  # type: ignore[override]
                  opts: Any = None) -> Any:
        host_outputs = [_host(outputs) for outputs in output_lists]
        self._gloo.allgather(host_outputs, _host(inputs)).wait()
        for outputs, results in zip(output_lists, host_outputs):
            _write_back(outputs, results)
        return _done(output_lists)

    def allgather_coalesced(self, output_lists: list[list[torch.Tensor]],
                            inputs: list[torch.Tensor], opts: Any = None) -> Any:
        for outputs, tensor in zip(output_lists, inputs):
            self.allgather([outputs], [tensor], opts)
        return _done(output_lists)

    def _allgather_base(self, output: torch.Tensor, input: torch.Tensor,
                        opts: Any = None) -> Any:
        self.allgather([list(output.chunk(self.size()))], [input], opts)
        return _done(output)

    all_gather_single = _allgather_base

    def all_gather_single_coalesced(self, outputs: list[torch.Tensor], inputs: list[torch.Tensor],
                                    opts: Any = None) -> Any:
        for output, tensor in zip(outputs, inputs):
            self._allgather_base(output, tensor, opts)
        return _done(outputs)

    allgather_into_tensor_coalesced = all_gather_single_coalesced  # type: ignore[assignment]

    def reduce_scatter(self, outputs: list[torch.Tensor],  # type: ignore[override]
                       input_lists: list[list[torch.Tensor]], opts: Any) -> Any:
        for output, inputs in zip(outputs, input_lists):
            stacked = torch.stack(_host(inputs))
            self._reduce_host([stacked], opts.reduceOp)
            output.copy_(stacked[self.rank()])
        return _done(outputs)

    def _reduce_scatter_base(self, output: torch.Tensor, input: torch.Tensor,
                             opts: Any) -> Any:
        self.reduce_scatter([output], [list(input.chunk(self.size()))], opts)
        return _done(output)

    reduce_scatter_single = _reduce_scatter_base  # type: ignore[assignment]

    def reduce_scatter_single_coalesced(self, outputs: list[torch.Tensor],  # type: ignore[override]
                                        inputs: list[torch.Tensor], opts: Any) -> Any:
        for output, tensor in zip(outputs, inputs):
            self._reduce_scatter_base(output, tensor, opts)
        return _done(outputs)

    reduce_scatter_tensor_coalesced = reduce_scatter_single_coalesced  # type: ignore[assignment]

    def all_to_all_single(self, output: torch.Tensor, input: torch.Tensor, output_split_sizes: list[int],
                          input_split_sizes: list[int], opts: Any = None) -> Any:
        host_output, host_input = _host([output, input])
        self._gloo.alltoall_base(host_output, host_input, output_split_sizes, input_split_sizes).wait()
        output.copy_(host_output)
        return _done(output)

    alltoall_base = all_to_all_single  # type: ignore[assignment]

    def alltoall(self, outputs: list[torch.Tensor], inputs: list[torch.Tensor],
                 opts: Any = None) -> Any:
        sizes = [t.numel() for t in outputs], [t.numel() for t in inputs]
        host_output = torch.empty(sum(sizes[0]), dtype=outputs[0].dtype)
        host_input = torch.cat([t.detach().cpu().reshape(-1) for t in inputs])
        self._gloo.alltoall_base(host_output, host_input, sizes[0], sizes[1]).wait()
        for target, part in zip(outputs, torch.split(host_output, sizes[0])):
            target.copy_(part.view(target.shape))
        return _done(outputs)

    def gather(self, output_lists: list[list[torch.Tensor]], inputs: list[torch.Tensor],  # type: ignore[override]
               opts: Any) -> Any:
        host_outputs = [_host(outputs) for outputs in output_lists]
        options = dist.GatherOptions()
        options.rootRank = opts.rootRank
        self._gloo.gather(host_outputs, _host(inputs), options).wait()
        for outputs, results in zip(output_lists, host_outputs):
            _write_back(outputs, results)
        return _done(output_lists)

    def scatter(self, outputs: list[torch.Tensor], input_lists: list[list[torch.Tensor]],  # type: ignore[override]
                opts: Any) -> Any:
        host_outputs = _host(outputs)
        options = dist.ScatterOptions()
        options.rootRank = opts.rootRank
        self._gloo.scatter(host_outputs, [_host(inputs) for inputs in input_lists], options).wait()
        _write_back(outputs, host_outputs)
        return _done(outputs)

    def send(self, tensors: list[torch.Tensor], dst: int, tag: int = 0) -> Any:
        self._gloo.send(_host(tensors), dst, tag).wait()
        return _done(tensors)

    def recv(self, tensors: list[torch.Tensor], src: int, tag: int = 0) -> Any:
        host = _host(tensors)
        self._gloo.recv(host, src, tag).wait()
        _write_back(tensors, host)
        return _done(tensors)

    def barrier(self, opts: Any = None) -> Any:
        self._gloo.barrier().wait()
        return _done([])

    # destroy_process_group shuts a group's backends down; this group is its own backend, so torch
    # would leave the gloo group inside it alive until the interpreter exits, whose teardown then
    # races its worker threads (pytorch/pytorch#190489: a gloo group outliving its use ends in
    # "terminate called without an active exception"). It is shut down here, as torch does gloo.
    def shutdown(self) -> None:
        gloo, self._gloo = self._gloo, None
        if gloo is not None:
            gloo.shutdown()

    def abort(self) -> None:
        gloo, self._gloo = self._gloo, None
        if gloo is not None:
            gloo.abort()


def _create(store: Any, rank: int, size: int, timeout: timedelta) -> ProcessGroupHCCL:
    return ProcessGroupHCCL(store, rank, size, timeout)


def is_hccl_available() -> bool:
    return True


def install() -> None:
    if "hccl" not in dist.Backend.backend_list:
        dist.Backend.register_backend("hccl", _create, devices=["npu"])
    # torch_npu adds this query next to torch's is_nccl_available / is_gloo_available.
    setattr(dist, "is_hccl_available", is_hccl_available)
