r"""``put``: ``source``'s elements written at flat positions of a tensor, PyTorch's name.

The tensor is indexed as if it were 1-d (row-major), negative positions counting from the
end; with ``accumulate=True`` the values are added, so a repeated position sums every value
written there, otherwise a repeated position keeps the last. The positions are read on the
host and checked before any kernel runs (the kernels do not check bounds). The gradient is
PyTorch's: ``grad`` (with the written positions zeroed unless accumulating) for the tensor,
``grad`` at the positions for ``source``:

.. math::
    \mathrm{put}(x, I, s)_{\mathrm{flat}}[I_k] = s_k, \qquad
    \frac{\partial L}{\partial s_k} = g_{\mathrm{flat}}[I_k]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function
from ..creation import tensor as make_tensor
from ..index_checks import stored_index_values
from ..tensor import Tensor, add_tensor_methods


def _positions(input: Tensor, index: Tensor, source: Any, accumulate: Any,  # noqa: A002
               call: tuple[str, int]) -> np.ndarray:
    """PyTorch's checks of ``put``'s operands, in its order; the flat positions, made non-negative.
    ``call``: the name called (``put`` or ``put_``) and where ``source`` stands in it, for the errors."""
    op, position = call
    if not isinstance(source, Tensor):
        raise TypeError(f"{op}(): argument 'source' (position {position}) must be Tensor, not {type(source).__name__}")
    if not isinstance(accumulate, bool):
        raise TypeError(f"{op}(): argument 'accumulate' must be bool, not {type(accumulate).__name__}")
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {dtypes.scalar_type_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{dtypes.scalar_type_name(input.dtype)} and source.dtype = {dtypes.scalar_type_name(source.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.numel()}, index.numel() = {index.numel()}"
        )
    size = input.numel()
    if size == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if index.numel() == 0:
        return np.zeros(0, dtype=np.int64)
    values = np.broadcast_to(stored_index_values(index), tuple(index.shape)).reshape(-1).astype(np.int64)
    outside = values[(values < -size) | (values >= size)]
    if outside.size:
        raise IndexError(f"out of range: tried to access index {int(outside[0])} on a tensor of {size} elements.")
    return values % size


class Put(Function):
    """``a`` with ``source`` written (or added, ``accumulate``) at the flat ``positions``."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, positions: np.ndarray, source: Tensor, accumulate: bool) -> Tensor:
        where_to = make_tensor(positions, dtype=dtypes.int64, device=a.device)
        ctx.where_to, ctx.accumulate, ctx.source_shape = where_to, accumulate, source.shape
        flat, values = a.reshape(-1), source.reshape(-1)
        if not accumulate:  # index_copy keeps the last value for a repeated position
            return flat.index_copy(0, where_to, values).reshape(a.shape)
        if a.dtype is dtypes.bool_:  # a bool sum is a logical or
            summed = flat.to(dtypes.int64).index_add(0, where_to, values.to(dtypes.int64))
            return summed.to(a.dtype).reshape(a.shape)
        return flat.index_add(0, where_to, values).reshape(a.shape)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None, Tensor, None]:
        flat = grad.reshape(-1)
        grad_a = flat if ctx.accumulate else flat.index_fill(0, ctx.where_to, 0)
        grad_source = flat.index_select(0, ctx.where_to).reshape(ctx.source_shape)
        return grad_a.reshape(grad.shape), None, grad_source, None


def _put(input: Tensor, index: Tensor, source: Any, accumulate: bool, call: tuple[str, int]) -> Tensor:  # noqa: A002
    return Put.apply(input, _positions(input, index, source, accumulate, call), source, accumulate)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002 - PyTorch's names
    """PyTorch's ``torch.put``: ``input`` with ``source``'s elements written at the flat positions
    ``index`` (negative ones from the end); ``accumulate`` adds them instead."""
    return _put(input, index, source, accumulate, ("put", 3))


class PutMethods:
    """``Tensor.put`` and ``Tensor.put_``."""

    def put(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
        return _put(self, index, source, accumulate, ("put", 2))

    def put_(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
        return self._inplace_apply(lambda old: _put(old, index, source, accumulate, ("put_", 2)), source)


add_tensor_methods({name: method for name, method in vars(PutMethods).items() if not name.startswith("__")})
