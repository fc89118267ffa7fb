r"""A profiler of modules built from forward hooks alone (course step 10, task 10.1).

Before the real profiler (:mod:`minitorch.profiler.profiler`, which sees every op), this one
looks only at module boundaries: a forward pre hook notes when each module's ``forward``
starts, a forward hook when it ends. Calls nest, so the open calls form a stack, and a
call's *self* time is its total less the totals of the calls nested directly inside it:

.. math::

    t_\text{self}(m) = t_\text{total}(m) - \sum_{c \text{ called inside } m} t_\text{total}(c)

Summed over a whole call tree the self times add up to the root's total.

.. code-block:: python

    with HookProfiler(model) as prof:
        model(x)
    print(prof.table(sort_by="self_ms"))

The clock is a parameter (integer nanoseconds, :func:`time.perf_counter_ns` by default), so
tests can drive it by hand.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..nn.modules.module import Module
from ..utils.hooks import RemovableHandle

#: nanoseconds in a millisecond
NS_PER_MS = 1_000_000
#: the columns :meth:`HookProfiler.table` can sort by (descending)
SORT_KEYS = ("calls", "total_ms", "self_ms")


@dataclass
class ModuleTime:
    """What one module's forward cost, summed over its calls."""

    name: str
    calls: int = 0
    total_ns: int = 0
    self_ns: int = 0

    @property
    def total_ms(self) -> float:
        """Milliseconds from each call's start to its end, summed."""
        return self.total_ns / NS_PER_MS

    @property
    def self_ms(self) -> float:
        """Milliseconds not spent in the calls of other modules nested inside."""
        return self.self_ns / NS_PER_MS


@dataclass
class OpenCall:
    """One call whose forward has started and not yet ended."""

    stats: ModuleTime
    start_ns: int
    nested_ns: int = 0  # the totals of the calls that ran directly inside this one


class HookProfiler:
    """Time and count every module's ``forward`` in ``model`` with forward (pre) hooks.

    Rows are named by :meth:`~minitorch.nn.Module.named_modules` (the model itself by its
    class name); a module reachable by two paths is one row. Hooks are attached on
    ``__enter__`` (or :meth:`attach`) and removed on ``__exit__`` (or :meth:`detach`).
    """

    def __init__(self, model: Module, clock: Callable[[], int] = time.perf_counter_ns) -> None:
        self.model = model
        self.clock = clock
        self.stats: dict[str, ModuleTime] = {}
        self.open_calls: list[OpenCall] = []
        self.handles: list[RemovableHandle] = []
        self.names: dict[int, str] = {}  # id(module) -> its row's name

    def __enter__(self) -> "HookProfiler":
        self.attach()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.detach()

    def attach(self) -> None:
        """One row per module, and on each module a pre hook (:meth:`before_forward`) and a
        forward hook that runs even when ``forward`` raises (:meth:`after_forward`)."""
        # BEGIN SOLUTION 10.1
        for name, module in self.model.named_modules():
            label = name or type(self.model).__name__
            self.names[id(module)] = label
            self.stats.setdefault(label, ModuleTime(label))
            self.handles.append(module.register_forward_pre_hook(self.before_forward))
            self.handles.append(module.register_forward_hook(self.after_forward, always_call=True))
        # END SOLUTION

    def detach(self) -> None:
        """Remove every hook this profiler registered; calls still open are dropped."""
        for handle in self.handles:
            handle.remove()
        self.handles.clear()
        self.open_calls.clear()

    def before_forward(self, module: Module, args: tuple[Any, ...]) -> None:
        """Forward pre hook: count the call and open it on the stack (returns None: the
        arguments stay as they are)."""
        # BEGIN SOLUTION 10.1
        stats = self.stats[self.names[id(module)]]
        stats.calls += 1
        self.open_calls.append(OpenCall(stats, self.clock()))
        # END SOLUTION

    def after_forward(self, module: Module, args: tuple[Any, ...], output: Any) -> None:
        """Forward hook: close the innermost open call, add its total and self time, and
        hand its total to the call it ran in (returns None: the output stays as it is)."""
        # BEGIN SOLUTION 10.1
        call = self.open_calls.pop()
        elapsed = self.clock() - call.start_ns
        call.stats.total_ns += elapsed
        call.stats.self_ns += elapsed - call.nested_ns
        if self.open_calls:
            self.open_calls[-1].nested_ns += elapsed
        # END SOLUTION

    def rows(self, sort_by: Optional[str] = None) -> list[ModuleTime]:
        """The rows in module order, or by ``sort_by`` (one of :data:`SORT_KEYS`), largest first."""
        rows = list(self.stats.values())
        if sort_by is None:
            return rows
        if sort_by not in SORT_KEYS:
            raise ValueError(f"sort_by must be one of {SORT_KEYS}, got {sort_by!r}")
        return sorted(rows, key=lambda row: getattr(row, sort_by), reverse=True)

    def table(self, sort_by: Optional[str] = None) -> str:
        """The rows as a text table: name, calls, total ms, self ms."""
        header = ("Name", "Calls", "Total ms", "Self ms")
        cells = [(row.name, str(row.calls), f"{row.total_ms:.3f}", f"{row.self_ms:.3f}") for row in self.rows(sort_by)]
        widths = [max(len(line[column]) for line in (header, *cells)) for column in range(len(header))]
        rule = "  ".join("-" * width for width in widths)

        def line(values: tuple[str, ...]) -> str:
            first = values[0].ljust(widths[0])
            return "  ".join([first, *(value.rjust(width) for value, width in zip(values[1:], widths[1:]))])

        return "\n".join([line(header), rule, *(line(values) for values in cells)])
