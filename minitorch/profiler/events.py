"""The events a profile records, and their averages per name (``prof.key_averages()``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

#: nanoseconds in a microsecond (PyTorch reports times in microseconds)
NS_PER_US = 1000.0


@dataclass
class Event:
    """One timed span: an op's forward, a node's backward, or a ``record_function`` label."""

    name: str
    start_ns: int
    end_ns: int = 0
    thread: int = 0
    kind: str = "cpu_op"  # or "user_annotation"
    input_shapes: list[list[int]] = field(default_factory=list)
    allocated_bytes: int = 0
    children: list["Event"] = field(default_factory=list)
    parent: Optional["Event"] = None

    @property
    def cpu_time_total(self) -> float:
        """Microseconds from start to end."""
        return (self.end_ns - self.start_ns) / NS_PER_US

    @property
    def self_cpu_time_total(self) -> float:
        """Microseconds not spent in the events nested inside."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.children)

    @property
    def self_cpu_memory_usage(self) -> int:
        """Bytes this event's own op returned (its total less what the ops inside allocated)."""
        return self.allocated_bytes - sum(child.allocated_bytes for child in self.children)


@dataclass
class FunctionEventAvg:
    """The events of one name (and input shapes, when grouped by them), summed."""

    key: str
    input_shapes: str = ""
    count: int = 0
    cpu_time_total: float = 0.0
    self_cpu_time_total: float = 0.0
    cpu_memory_usage: int = 0
    self_cpu_memory_usage: int = 0

    @property
    def cpu_time(self) -> float:
        """Average microseconds per call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def add(self, event: Event) -> None:
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.allocated_bytes
        self.self_cpu_memory_usage += event.self_cpu_memory_usage


def _time(us: float) -> str:
    """PyTorch's time format: us below a millisecond, ms below a second, else s."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _bytes(count: int) -> str:
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(count) >= size:
            return f"{count / size:.2f} {unit}"
    return f"{count} b"


#: what ``table(sort_by=...)`` can sort by (largest first)
SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count", "cpu_memory_usage", "self_cpu_memory_usage")


class EventList(list):
    """``prof.key_averages()``: one :class:`FunctionEventAvg` per key, with :meth:`table`."""

    def __init__(self, averages: list[FunctionEventAvg], profile_memory: bool, with_shapes: bool) -> None:
        super().__init__(averages)
        self._memory = profile_memory
        self._shapes = with_shapes

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, max_name_column_width: int = 55,
              header: Optional[str] = None, top_level_events_only: bool = False) -> str:
        """The averages as PyTorch lays them out: name, self and total CPU time and share, calls."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in SORT_KEYS:
                raise ValueError(f"sort_by must be one of {', '.join(SORT_KEYS)}, got {sort_by!r}")
            rows.sort(key=lambda row: getattr(row, sort_by), reverse=True)
        if row_limit >= 0:
            rows = rows[:row_limit]
        self_total = sum(row.self_cpu_time_total for row in self) or 1.0
        name_width = min(max([len("Name")] + [len(r.key) for r in rows]) + 4, max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        if self._memory:
            headers += ["CPU Mem", "Self CPU Mem"]
        headers.append("# of Calls")
        if self._shapes:
            headers.append("Input Shapes")
        widths = [name_width] + [12] * (len(headers) - 1)
        if self._shapes:
            widths[-1] = max([len("Input Shapes")] + [len(r.input_shapes) for r in rows]) + 2
        line = "  ".join("-" * w for w in widths)

        def cells(values: list[str]) -> str:
            first = values[0] if len(values[0]) <= name_width else values[0][: name_width - 3] + "..."
            return "  ".join([first.rjust(widths[0])] + [v.rjust(w) for v, w in zip(values[1:], widths[1:])])

        out = ([header] if header else []) + [line, cells(headers), line]
        for row in rows:
            values = [row.key, f"{100 * row.self_cpu_time_total / self_total:.2f}%", _time(row.self_cpu_time_total),
                      f"{100 * row.cpu_time_total / self_total:.2f}%", _time(row.cpu_time_total), _time(row.cpu_time)]
            if self._memory:
                values += [_bytes(row.cpu_memory_usage), _bytes(row.self_cpu_memory_usage)]
            values.append(str(row.count))
            if self._shapes:
                values.append(row.input_shapes)
            out.append(cells(values))
        out += [line, f"Self CPU time total: {_time(sum(row.self_cpu_time_total for row in self))}", ""]
        return "\n".join(out)
