r"""``minitorch.profiler.profile``: where the time of a program goes, op by op.

.. code-block:: python

    from minitorch.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")  # open in Perfetto or chrome://tracing

Each op's forward is an event named as PyTorch's ATen op (``aten::mm``, ``aten::add``: the
op's autograd node name without ``Backward``, in snake case; a user's ``autograd.Function`` by
its class name, ``MyCube``), each node's backward an event
``autograd::engine::evaluate_function: MmBackward0`` around one named as the node
(``MmBackward0``, ``MyCubeBackward``), and each ``record_function`` label an
event around what runs inside it; events nest. While no profile runs, the op path is exactly
the one without a profiler (see :mod:`minitorch.autograd.profiling`).
"""

from __future__ import annotations

import enum
import functools
import json
import os
import re
import threading
import time
import warnings
from collections import OrderedDict
from typing import Any, Callable, Iterable, Optional

from ..autograd import profiling
from ..autograd.function import default_node_name, is_own_function
from .events import Event, EventList, FunctionEventAvg


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0) -> Callable[[int], ProfilerAction]:
    """PyTorch's profiling schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        place = step % cycle
        if place < wait:
            return ProfilerAction.NONE
        if place < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if place < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


#: node names of ops run without a graph (no node to ask) whose ATen name differs from their own
UNRECORDED_NAMES = {"MatMulBackward0": "aten::mm", "ToCopyBackward0": "aten::_to_copy"}


def aten_name(node_name: str) -> str:
    """PyTorch's name of an op's forward event from its node's: ``MmBackward0`` -> ``aten::mm``."""
    if node_name in UNRECORDED_NAMES:
        return UNRECORDED_NAMES[node_name]
    base = re.sub(r"Backward\d*$", "", node_name)
    return "aten::" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()


def _node_name(function: type, result: Any) -> str:
    """The node the op recorded (renamed as PyTorch names it), else the Function's own name."""
    node = getattr(result, "grad_fn", None) if not isinstance(result, tuple) else None
    if node is not None and hasattr(node, "name"):
        return node.name()
    return getattr(function, "grad_fn_name", None) or default_node_name(function)


def _shapes(args: Iterable[Any]) -> list[list[int]]:
    return [list(a.shape) if hasattr(a, "shape") and hasattr(a, "_data") else [] for a in args]


def _bytes_of(value: Any) -> int:
    data = getattr(value, "_data", None)
    return int(value.numel() * value.dtype.itemsize) if data is not None else 0


class _Recorder:
    """Collects the events of one profile (the hooks of :mod:`minitorch.autograd.profiling` call it)."""

    def __init__(self, record_shapes: bool, profile_memory: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.events: list[Event] = []
        self.local = threading.local()
        self.enabled = True

    def _open(self, name: str, kind: str, shapes: list[list[int]]) -> Event:
        stack = self.local.__dict__.setdefault("stack", [])
        event = Event(name, time.perf_counter_ns(), thread=threading.get_ident(), kind=kind, input_shapes=shapes,
                      parent=stack[-1] if stack else None)
        (stack[-1].children if stack else self.events).append(event)
        stack.append(event)
        return event

    def _close(self, event: Event) -> None:
        event.end_ns = time.perf_counter_ns()
        self.local.stack.pop()

    def span(self, name: str, kind: str, shapes: list[list[int]], run: Callable[[], Any]) -> tuple[Any, Optional[Event]]:
        """``run()`` inside a new event; the result and the event (None while recording is paused)."""
        if not self.enabled:
            return run(), None
        event = self._open(name, kind, shapes)
        try:
            result = run()
        finally:
            self._close(event)
        if self.profile_memory:  # the bytes of what it returned, plus what the ops inside allocated
            own = sum(_bytes_of(r) for r in (result if isinstance(result, tuple) else (result,)))
            event.allocated_bytes = own + sum(child.allocated_bytes for child in event.children)
        return result, event

    def op(self, function: type, args: tuple[Any, ...], run: Callable[[], Any]) -> Any:
        result, event = self.span("", "cpu_op", _shapes(args) if self.record_shapes else [], run)
        if event is not None:  # a user's Function is named as its class (``MyCube``), as PyTorch names it
            event.name = aten_name(_node_name(function, result)) if is_own_function(function) else function.__name__
        return result

    def backward(self, node_name: str, run: Callable[[], Any]) -> Any:
        """The engine's event for a node (``autograd::engine::evaluate_function: MulBackward0``)
        around the node's own (``MulBackward0``), as PyTorch records them."""
        return self.span(f"autograd::engine::evaluate_function: {node_name}", "cpu_op", [],
                         lambda: self.span(node_name, "cpu_op", [], run)[0])[0]


class profile:  # noqa: N801 - PyTorch's name
    """Record ops, backward nodes and ``record_function`` labels while active (see the module docs)."""

    def __init__(self, *, activities: Optional[Iterable[ProfilerActivity]] = None,
                 schedule: Optional[Callable[[int], ProfilerAction]] = None,  # noqa: A002 - PyTorch's names
                 on_trace_ready: Optional[Callable[["profile"], Any]] = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False) -> None:
        self.activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.step_num = 0
        self._recorder: Optional[_Recorder] = None
        self._saved: list[Event] = []

    # ---- lifetime ----

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        self.stop()
        return False

    def start(self) -> None:
        self._recorder = _Recorder(self.record_shapes, self.profile_memory)
        self._recorder.enabled = self.schedule(self.step_num) in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        profiling.install(self._recorder)

    def stop(self) -> None:
        profiling.uninstall()
        if self._recorder is not None:
            self._saved.extend(self._recorder.events)
            self._recorder = None
            # a scheduled profile that stops on its saving step hands that step's trace over
            saves = self.schedule is not _always_record and self.schedule(self.step_num) == ProfilerAction.RECORD_AND_SAVE
            if saves and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def step(self) -> None:
        """End a step of the schedule: save and hand over the trace after the last active step."""
        if self._recorder is None:
            return
        action = self.schedule(self.step_num)
        self.step_num += 1
        following = self.schedule(self.step_num)
        if action == ProfilerAction.RECORD_AND_SAVE:
            self._saved = list(self._recorder.events)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if action == ProfilerAction.RECORD_AND_SAVE or action in (ProfilerAction.NONE, ProfilerAction.WARMUP):
            self._recorder.events = []  # warm-up events and what was handed over are not kept
        self._recorder.enabled = following in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    # ---- results ----

    def events(self) -> list[Event]:
        """Every recorded event, nested ones too (one flat list, as PyTorch's), each before those
        nested inside it and holding them as its ``children``."""
        return self._all_events()

    def _all_events(self) -> list[Event]:
        found: list[Event] = []
        pending = list(self._saved)
        while pending:
            event = pending.pop(0)
            found.append(event)
            pending[:0] = event.children
        return found

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """The events averaged per name (and per input shapes with ``group_by_input_shape``)."""
        groups: "OrderedDict[tuple[str, str], FunctionEventAvg]" = OrderedDict()
        for event in self._all_events():
            shapes = str(event.input_shapes) if group_by_input_shape else ""
            key = (event.name, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(event.name, shapes)
            groups[key].add(event)
        return EventList(list(groups.values()), self.profile_memory, group_by_input_shape)

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """The events as Chrome's trace format (complete ``X`` events in microseconds): open it in
        Perfetto or chrome://tracing."""
        events = self._all_events()
        origin = min((e.start_ns for e in events), default=0)
        trace = [{
            "ph": "X", "cat": event.kind, "name": event.name, "pid": os.getpid(), "tid": event.thread,
            "ts": (event.start_ns - origin) / 1000.0, "dur": (event.end_ns - event.start_ns) / 1000.0,
            "args": {"Input Dims": event.input_shapes} if event.input_shapes else {},
        } for event in events]
        with open(path, "w", encoding="utf-8") as file:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, file)


class record_function:  # noqa: N801 - PyTorch's name
    """A labelled event around a block (``with record_function("label"):``) or a function (decorator)."""

    def __init__(self, name: str, args: Optional[str] = None) -> None:
        self.name = name
        self.args = args
        self._event: Optional[Event] = None

    def __enter__(self) -> "record_function":
        recorder = profiling.active
        if recorder is not None and recorder.enabled:
            self._event = recorder._open(self.name, "user_annotation", [])
            self._recorder = recorder
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        if self._event is not None:
            self._recorder._close(self._event)
            self._event.allocated_bytes = sum(child.allocated_bytes for child in self._event.children)
            self._event = None
        return False

    def __call__(self, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def labelled(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return function(*args, **kwargs)

        return labelled
