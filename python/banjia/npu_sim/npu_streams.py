"""Streams and events of the simulated npu (part of `torch.npu`): in order, already finished.

Every simulated op has finished when it returns, so waiting is a no-op and queries answer True.
A Stream is a torch.Stream (Tensor.record_stream and torch's stream arguments accept only those)
with id 0 on its device; Event.elapsed_time measures host time between the two records.
"""
from __future__ import annotations

import time
from typing import Any

import torch

from banjia.npu_sim import devices

_device_type: list[int] = []


def _privateuse1_type() -> int:
    """c10's DeviceType number of PrivateUse1, as torch.Stream takes it."""
    if not _device_type:
        _device_type.append(torch.Stream(device=torch.device("npu", 0)).device_type)
    return _device_type[0]


class Event:
    """Records host time; every simulated op is finished when it returns, so queries are True."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self._time: float | None = None

    def record(self, stream: Any = None) -> None:
        self._time = time.perf_counter()

    def wait(self, stream: Any = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with enable_timing=True")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calling elapsed_time")
        return (end_event._time - self._time) * 1000.0


class Stream(torch.Stream):
    """An in-order queue: the simulated device runs each op to completion when it is issued."""

    def __new__(cls, device: Any = None, priority: int = 0, **kwargs: Any) -> Stream:
        made: Stream = super().__new__(cls, stream_id=0, device_index=devices.index(device),
                                       device_type=_privateuse1_type())
        return made

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        self.priority = priority

    def wait_event(self, event: Any) -> None:
        return None

    def wait_stream(self, stream: Any) -> None:
        return None

    def record_event(self, event: Any = None) -> Any:
        event = event or Event()
        event.record(self)
        return event

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def current_stream(dev: Any = None) -> Stream:
    return Stream(dev)


def default_stream(dev: Any = None) -> Stream:
    return Stream(dev)


def set_stream(s: Any) -> None:
    return None


class StreamContext:
    def __init__(self, s: Any) -> None:
        self.stream = s

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def stream(s: Any) -> StreamContext:
    return StreamContext(s)
