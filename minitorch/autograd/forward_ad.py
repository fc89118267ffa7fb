r"""Forward-mode automatic differentiation with dual tensors, as ``torch.autograd.forward_ad``.

A *dual tensor* pairs a value (the primal) with a direction (the tangent). Ops on dual tensors
compute, alongside their result, the result's tangent: the Jacobian-vector product
:math:`J \dot x` of the op, and by the chain rule of the whole computation::

    import minitorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)          # x, with tangent v
        out = f(dual)
        y, jvp = fwAD.unpack_dual(out)       # f(x) and J_f(x) v

All of it happens inside a :class:`dual_level`; leaving the level drops every tangent made in
it. A tensor without a tangent counts as having a zero one. How each op finds its output's
tangent (a custom Function's ``jvp``, or derived from the op's backward) is in
:mod:`.forward_mode`.

As PyTorch's Python API, one level at a time (``torch.func.jvp`` is the tool for higher
orders). A backward run inside the level on tensors with tangents gives gradients with tangents
(forward over reverse), and a tangent that depends on a tensor requiring grad is differentiable
(reverse over forward). Where minitorch differs from PyTorch:

* in-place operations that involve a dual tensor (as the tensor written or as an operand) are
  refused with an error rather than updating the tangent in place: write ``x = x + y``, or pass
  ``inplace=False``;
* a tangent requires grad only where it depends on a tensor that requires grad (PyTorch marks
  some others too, e.g. a linear layer's tangent when its weight requires grad);
* an op with a dual input costs a few times its backward (its tangent is derived from it);
* ``repr`` of a dual tensor does not show its tangent.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Optional, TypeVar

from ..creation import empty_like
from ..tensor import Tensor
from . import dual_state
from .dual_state import suspended, tangent_of
from .forward_mode import check_tangent, dual_apply, same_layout
from .function import route_apply

F = TypeVar("F", bound=Callable[..., Any])

#: the level number when none is open (PyTorch's ``_current_level`` then)
NO_LEVEL = -1


def _level_number() -> int:
    level = dual_state.open_level
    return NO_LEVEL if level is None else level.number


def enter_dual_level() -> int:
    """Open a new forward AD level, the one :func:`make_dual` and :func:`unpack_dual` use by
    default; returns its number."""
    if dual_state.open_level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    level = dual_state.open_new_level()
    route_apply(dual_apply)
    return level.number


def exit_dual_level(*, level: Optional[int] = None) -> None:
    """Close the open level (only the last one opened may be closed), dropping its tangents."""
    current = _level_number()
    if level is None:
        level = current
    if level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    route_apply(None)
    dual_state.close_level()


def make_dual(tensor: Tensor, tangent: Tensor, *, level: Optional[int] = None) -> Tensor:
    """A view of ``tensor`` whose tangent is ``tangent``: as it is when it lies in memory like
    ``tensor``, else copied into ``tensor``'s layout. Differentiable in reverse mode too."""
    current = _level_number()
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if level != current:
        raise RuntimeError("Invalid level given to _make_dual")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent_of(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    check_tangent(tensor, tangent)
    with suspended():
        dual = tensor.view_as(tensor)
        if not same_layout(tensor, tangent):
            laid_out = empty_like(tensor, dtype=tangent.dtype, device=tangent.device)
            tangent = laid_out.copy_(tangent)  # recorded when the tangent requires grad: still differentiable
    dual_state.set_tangent(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal and the tangent (None when there is none)."""

    primal: Tensor
    tangent: Optional[Tensor]


def unpack_dual(tensor: Tensor, *, level: Optional[int] = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at the level: the primal a view of ``tensor`` without
    a tangent, the tangent as it is stored (None for a tensor without one, or outside a level)."""
    current = _level_number()
    if level is None:
        level = current
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor)
    if level != current:
        if tangent is not None:
            raise RuntimeError("Invalid level given to _fw_primal")
    with suspended():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)


class dual_level:  # noqa: N801 - PyTorch's name
    """A context manager (and decorator) inside which forward AD runs: it enters a level on
    entry and exits it, dropping the tangents made in it, on the way out (also on an error)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info: Any) -> None:
        exit_dual_level()

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]
