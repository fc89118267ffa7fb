"""The tensors a function transform captured, and PyTorch's refusal to write into them.

Inside a function given to ``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` or
``vmap``, a tensor the function neither received as a positional input nor made itself is
*captured* (a module's buffer, a global). PyTorch refuses an in-place write into one (a batch
norm's running statistics, a step counter): under a derivative transform the write would escape
the derivative, and under ``vmap`` it would have to happen once for the whole batch, where here
the function runs once per slice.

Each transform call opens a level numbered above every level before it. A tensor made while a
level is open keeps the innermost level's number (``Tensor._transform_level``, 0 for a tensor
made outside every transform); a write into a tensor, or into a view of one, whose root was made
before the innermost level opened and is not one of that level's inputs is refused before it
happens. Levels belong to the thread that opened them.
"""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:
    from ..tensor import Tensor

#: the innermost open level's number in any thread (0 when none is open): the one cheap check
#: that tensor creation and in-place writes make
innermost = 0

_numbers = itertools.count(1)
_LOCK = threading.Lock()
#: the open levels of each thread, innermost last
_open: dict[int, list["Level"]] = {}

GRAD_REFUSAL = ("During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call in-place "
                "operation that would mutate a captured Tensor{detail}. This is not supported; please rewrite the "
                "function being transformed to explicitly accept the mutated Tensor(s) as inputs.")


@dataclass
class Level:
    """One open transform call: its number, its kind (``'grad'`` or ``'vmap'``) and its inputs."""

    number: int
    kind: str
    api: str
    #: the inputs' roots by id (kept, so that no id is reused while the level is open)
    inputs: dict[int, Any] = field(default_factory=dict)


def _root(tensor: "Tensor") -> "Tensor":
    return tensor._base if tensor._base is not None else tensor


def _refresh_innermost() -> None:
    global innermost
    innermost = max((levels[-1].number for levels in _open.values() if levels), default=0)


@contextmanager
def transform_level(kind: str, api: str, inputs: Iterable[Any]) -> Iterator[Level]:
    """Open a level around one call of a transformed function; ``inputs`` are its arguments'
    leaves (tensors among them count as inputs, not as captured)."""
    level = Level(next(_numbers), kind, api)
    for value in inputs:
        if hasattr(value, "_transform_level"):
            root = _root(value)
            level.inputs[id(root)] = root
    thread = threading.get_ident()
    with _LOCK:
        _open.setdefault(thread, []).append(level)
        _refresh_innermost()
    try:
        yield level
    finally:
        with _LOCK:
            levels = _open[thread]
            levels.remove(level)
            if not levels:
                del _open[thread]
            _refresh_innermost()


def open_kinds() -> tuple[str, ...]:
    """The kinds (``'grad'``, ``'vmap'``) of the levels this thread has open, outermost first."""
    return tuple([level.kind for level in _open.get(threading.get_ident(), ())])


def inherit(alias: "Tensor", source: "Tensor") -> None:
    """Make ``alias`` (``source.detach()``, ``source.data``: the same storage, no view) count as
    ``source`` does: captured where ``source`` is, an input where ``source`` is one."""
    root = _root(source)
    alias._transform_level = root._transform_level
    for level in _open.get(threading.get_ident(), ()):
        if id(root) in level.inputs:
            level.inputs[id(alias)] = alias


def refuse_captured_write(tensor: "Tensor") -> None:
    """Raise PyTorch's error when ``tensor`` is captured by this thread's innermost level."""
    levels = _open.get(threading.get_ident())
    if not levels:
        return
    level = levels[-1]
    root = _root(tensor)
    if root._transform_level >= level.number or id(root) in level.inputs:
        return
    detail = f" (of shape {list(tensor.shape)})"
    if level.kind == "grad":
        raise RuntimeError(GRAD_REFUSAL.format(detail=detail))
    raise RuntimeError(f"{level.api}: the function wrote in place into a Tensor it captured{detail}: neither one of its "
                       f"inputs nor made inside it. PyTorch makes such a write once for the whole batch (and refuses "
                       f"it when the value written depends on the batch); here the function runs once per slice and "
                       f"would repeat it. Pass the tensor as an input, or return the new value instead of writing it.")
