"""``minitorch.profiler``: PyTorch's profiler names (``profile``, ``record_function``, ``schedule``)."""

from __future__ import annotations

from .events import Event, EventList, FunctionEventAvg
from .profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

__all__ = ["Event", "EventList", "FunctionEventAvg", "ProfilerAction", "ProfilerActivity", "profile", "record_function",
           "schedule"]
