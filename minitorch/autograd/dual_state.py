"""Forward-mode AD's state: the open dual level and the tangent each tensor carries at it.

A tensor's tangent sits in its ``_dual`` field as ``(level, tangent)``; it counts only while
that level is the open one, and closing the level drops every tangent made in it, so a tensor
kept past the level (or into a later one) has none, as PyTorch's. One level at a time, for the
whole process (PyTorch's Python API refuses nested levels too). Tangents are not carried
through in-place writes: :func:`refuse_inplace` stops such a write with a clear error instead
of leaving a tangent that no longer matches its primal.

This module imports no tensor code, so that the Tensor can ask it before an in-place write.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Optional

if TYPE_CHECKING:
    from ..tensor import Tensor

#: the registry of a level is swept of dead tensors when it reaches this many entries (then twice the survivors)
_FIRST_SWEEP = 1024


class DualLevel:
    """An open level: its number and the tensors given a tangent in it (weakly, to clear them on exit)."""

    def __init__(self, number: int) -> None:
        self.number = number
        self._holders: list[weakref.ref] = []
        self._next_sweep = _FIRST_SWEEP

    def remember(self, tensor: "Tensor") -> None:
        holders = self._holders
        holders.append(weakref.ref(tensor))
        if len(holders) >= self._next_sweep:
            holders[:] = [ref for ref in holders if ref() is not None]
            self._next_sweep = max(_FIRST_SWEEP, 2 * len(holders))

    def __deepcopy__(self, memo: dict) -> "DualLevel":
        """A level never opened: a deep copy of a dual tensor has no tangent, as PyTorch's (and the
        registry is not copied)."""
        return DualLevel(self.number)

    def clear(self) -> None:
        """Drop the tangents given in this level."""
        for ref in self._holders:
            tensor = ref()
            if tensor is not None and tensor._dual is not None and tensor._dual[0] is self:
                tensor._dual = None
        self._holders = []


#: the open level, or None
open_level: Optional[DualLevel] = None


class _PerThread(threading.local):
    def __init__(self) -> None:
        #: inside an op's forward or tangent computation: ops run plain (no tangents of their own)
        self.suspended = False


per_thread = _PerThread()


def open_new_level() -> DualLevel:
    global open_level
    open_level = DualLevel(0)
    return open_level


def close_level() -> None:
    global open_level
    if open_level is not None:
        open_level.clear()
    open_level = None


def tangent_of(tensor: "Tensor") -> Optional["Tensor"]:
    """``tensor``'s tangent at the open level, or None (also while :func:`suspended`: an op's
    forward and a custom ``jvp`` see plain tensors, as PyTorch's)."""
    entry = tensor._dual
    if entry is None or entry[0] is not open_level or per_thread.suspended:
        return None
    return entry[1]


def set_tangent(tensor: "Tensor", tangent: "Tensor") -> None:
    """Give ``tensor`` the tangent ``tangent`` at the open level (which must exist)."""
    assert open_level is not None
    tensor._dual = (open_level, tangent)
    open_level.remember(tensor)


@contextmanager
def suspended() -> Iterator[None]:
    """Ops run in this thread as without forward AD (an op's own forward, its tangent's computation)."""
    state = per_thread
    previous = state.suspended
    state.suspended = True
    try:
        yield
    finally:
        state.suspended = previous


def refuse_inplace(target: Any, operands: tuple) -> None:
    """Raise when an in-place write would involve a tangent (``target`` or an operand is dual)."""
    for value in (target, *operands):
        if getattr(value, "_dual", None) is not None and tangent_of(value) is not None:
            raise NotImplementedError(
                "forward AD: in-place operations on dual tensors, or with a dual tensor as an operand, are not "
                "supported in minitorch (the tangent would not follow the write); use the out-of-place form of "
                "the operation (for example x = x + y instead of x += y, or inplace=False)")
