r"""Jacobians measured three ways, for :mod:`.gradcheck`: central differences, backward
(row by row) and forward-mode AD (column by column).

The Jacobian of one output :math:`y` with respect to one input :math:`x` is held as a NumPy
array of shape ``(x.numel(), y.numel())``, PyTorch's layout in gradcheck: row :math:`k` holds
:math:`\partial y / \partial x_k` (elements in row-major order, whatever the strides).

* Central differences nudge the input *in place*, through ``x.data`` (its storage, without
  bumping the version counter, so a graph recorded before stays usable), and call the function
  again: :math:`(f(x + \epsilon e_k) - f(x - \epsilon e_k)) / 2\epsilon` is row :math:`k`.
* Backward gives a row per output element: :math:`e_j^\top J` is the gradient of the
  cotangent :math:`e_j` (one-hot), so it builds :math:`J^\top` column by column.
* Forward AD gives :math:`J e_k` for the tangent :math:`e_k`: row :math:`k` again.

The randomized ("fast") check uses the same three tools along one direction :math:`u` (and one
cotangent :math:`v`) instead of every :math:`e_k`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ..creation import tensor, zeros_like
from ..tensor import Tensor
from . import forward_ad
from . import grad as autograd_grad

#: one output's Jacobian with respect to one input, ``(input.numel(), output.numel())``
Jacobian = np.ndarray


def as_tuple(value: Any) -> tuple:
    """``value`` as a tuple: a tuple as it is, a list converted, anything else wrapped."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def is_float_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) and value.is_floating_point()


def requires_grad(value: Any) -> bool:
    """Whether ``value`` is a tensor that requires grad (an input to check, a differentiable output)."""
    return isinstance(value, Tensor) and value.requires_grad


def to_numpy(value: Tensor) -> np.ndarray:
    """A copy of ``value``'s elements in its own dtype, on the host."""
    return np.array(value.detach().cpu().numpy())


def like(array: np.ndarray, dtype: Any, device: Any) -> Tensor:
    """``array`` as a tensor of ``dtype`` on ``device`` (a Jacobian to print, a direction to apply)."""
    return tensor(array, dtype=dtype, device=device)


def _evaluate(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[Optional[Tensor]]:
    """``fn(*inputs)``'s floating point outputs, copied (None for other outputs): the next
    nudge of an input must not change what an output that aliases it holds."""
    return [out.detach().clone() if is_float_tensor(out) else None for out in as_tuple(fn(*inputs))]


def _check_same_kind(below: Tensor, above: Tensor, eps: float, where: Optional[tuple[int, ...]]) -> None:
    on_index = f"on index {where} " if where is not None else ""
    if below.shape != above.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                             f"{on_index}by {eps}, but got: shapes {below.shape} and {above.shape}.")
    if below.dtype != above.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                             f"{on_index}by {eps}, but got: dtypes {below.dtype} and {above.dtype}.")


def central_difference(fn: Callable[..., Any], inputs: Sequence[Any], entry: Tensor, step: Union[float, Tensor],
                       eps: float, where: Optional[tuple[int, ...]] = None) -> list[Optional[np.ndarray]]:
    r"""Per output of ``fn(*inputs)``, :math:`(f(x + s) - f(x - s)) / 2\epsilon` flattened, where
    ``entry`` (part of an input's ``.data``) is moved by the step :math:`s` in place and put back
    after; None for outputs that are not floating point tensors."""
    original = entry.clone()
    try:
        entry.copy_(original - step)
        below = _evaluate(fn, inputs)
        entry.copy_(original + step)
        above = _evaluate(fn, inputs)
    finally:
        entry.copy_(original)
    slopes: list[Optional[np.ndarray]] = []
    for low, high in zip(below, above):
        if low is None or high is None:
            slopes.append(None)
            continue
        _check_same_kind(low, high, eps, where)
        slopes.append(((to_numpy(high) - to_numpy(low)) / (2 * eps)).reshape(-1))
    return slopes


def numerical_jacobians(fn: Callable[..., Any], inputs: Sequence[Any], index: int, outputs: Sequence[Any],
                        eps: float) -> list[Optional[Jacobian]]:
    """Per output (``outputs``: ``fn``'s results at ``inputs``), its Jacobian with respect to
    ``inputs[index]`` by central differences, one input element at a time, in the output's
    dtype; None for outputs that are not floating point tensors."""
    data = inputs[index].data
    jacobians = [np.zeros((data.numel(), out.numel()), dtype=out.dtype.numpy) if is_float_tensor(out) else None
                 for out in outputs]
    for row, where in enumerate(np.ndindex(*data.shape)):
        slopes = central_difference(fn, inputs, data[where], eps, eps, where)
        for jacobian, slope in zip(jacobians, slopes):
            if jacobian is not None and slope is not None:
                jacobian[row] = slope
    return jacobians


def numerical_jvp(fn: Callable[..., Any], inputs: Sequence[Any], index: int, direction: np.ndarray,
                  eps: float) -> list[Optional[np.ndarray]]:
    r""":math:`J u` per output by central differences, ``inputs[index]`` moved along the
    direction :math:`u` (flat) by :math:`\epsilon u`."""
    data = inputs[index].data
    step = like(direction.reshape(tuple(data.shape)), data.dtype, data.device) * eps
    return central_difference(fn, inputs, data, step, eps)


def vector_jacobian_product(output: Tensor, others: Sequence[Tensor], diff_inputs: Sequence[Tensor],
                            cotangent: np.ndarray) -> tuple[Optional[Tensor], ...]:
    r""":math:`v^\top J` of ``output`` for each input, by one backward pass keeping the graph.

    The other differentiable outputs get zero cotangents rather than none: an op with several
    outputs then receives a gradient for each, as PyTorch's custom Functions do (zeros in place
    of the undefined ones)."""
    seed = like(cotangent.reshape(tuple(output.shape)), output.dtype, output.device)
    return autograd_grad([output, *others], list(diff_inputs), [seed, *(zeros_like(o) for o in others)],
                         retain_graph=True, allow_unused=True)


def backward_rows(output: Tensor, others: Sequence[Tensor],
                  diff_inputs: Sequence[Tensor]) -> list[list[Optional[Tensor]]]:
    """Per input, the gradients of each element of ``output`` in turn (one-hot cotangents):
    the rows of the Jacobian, as backward returns them (None where it returns none)."""
    rows: list[list[Optional[Tensor]]] = [[] for _ in diff_inputs]
    for element in range(output.numel()):
        one_hot = np.zeros(output.numel(), dtype=output.dtype.numpy)
        one_hot[element] = 1
        for per_input, grad in zip(rows, vector_jacobian_product(output, others, diff_inputs, one_hot)):
            per_input.append(None if grad is None else grad.detach().clone())
    return rows


def stack_rows(rows: list[list[Optional[Tensor]]], diff_inputs: Sequence[Tensor]) -> tuple[list[Jacobian], bool, bool]:
    """The Jacobians (in each input's dtype; zeros where backward gave None) from
    :func:`backward_rows`, and whether every gradient had its input's shape and dtype."""
    jacobians: list[Jacobian] = []
    sizes_ok = types_ok = True
    for per_input, inp in zip(rows, diff_inputs):
        jacobian = np.zeros((inp.numel(), len(per_input)), dtype=inp.dtype.numpy)
        for column, grad in enumerate(per_input):
            if grad is None:
                continue
            if grad.shape != inp.shape:
                sizes_ok = False
                continue
            if grad.dtype != inp.dtype:
                types_ok = False
            jacobian[:, column] = to_numpy(grad).reshape(-1)
        jacobians.append(jacobian)
    return jacobians, sizes_ok, types_ok


def forward_tangents(fn: Callable[..., Any], inputs: Sequence[Any], tangents: dict[int, Tensor],
                     zeros_for_none: bool = False) -> list[Optional[np.ndarray]]:
    """Per output, its tangent (flat; None for an output that is not a floating point tensor,
    and for one without a tangent unless ``zeros_for_none``, which gives zeros) when the inputs
    at the keys of ``tangents`` enter ``fn`` as dual tensors with those tangents (detached from
    any graph); the other inputs enter as they are."""
    with forward_ad.dual_level():
        args = list(inputs)
        for position, tangent in tangents.items():
            args[position] = forward_ad.make_dual(inputs[position].detach(), tangent)
        found: list[Optional[np.ndarray]] = []
        for out in as_tuple(fn(*args)):
            if not is_float_tensor(out):
                found.append(None)
                continue
            tangent = forward_ad.unpack_dual(out).tangent
            if tangent is not None:
                found.append(to_numpy(tangent).reshape(-1))
            else:
                found.append(np.zeros(out.numel(), dtype=out.dtype.numpy) if zeros_for_none else None)
    return found


def forward_jvp(fn: Callable[..., Any], inputs: Sequence[Any], positions: Sequence[int], index: int,
                direction: np.ndarray) -> list[Optional[np.ndarray]]:
    r""":math:`J u` per floating point output by forward AD: input ``index`` with the tangent
    :math:`u` (flat), the other differentiable inputs (``positions``) with zero tangents; an
    output without a tangent gets zeros."""
    tangents = {}
    for position in positions:
        inp = inputs[position]
        tangents[position] = (like(direction.reshape(tuple(inp.shape)), inp.dtype, inp.device) if position == index
                              else zeros_like(inp.detach()))
    return forward_tangents(fn, inputs, tangents, zeros_for_none=True)


def forward_jacobians(fn: Callable[..., Any], inputs: Sequence[Any], positions: Sequence[int], index: int,
                      outputs: Sequence[Any]) -> list[Optional[Jacobian]]:
    """Per output (``outputs``: ``fn``'s results at ``inputs``), its Jacobian with respect to
    ``inputs[index]`` by forward AD, one one-hot tangent (one row) at a time, in the output's
    dtype; None for outputs that are not floating point tensors."""
    inp = inputs[index]
    jacobians = [np.zeros((inp.numel(), out.numel()), dtype=out.dtype.numpy) if is_float_tensor(out) else None
                 for out in outputs]
    for row in range(inp.numel()):
        one_hot = np.zeros(inp.numel(), dtype=inp.dtype.numpy)
        one_hot[row] = 1
        for jacobian, tangent in zip(jacobians, forward_jvp(fn, inputs, positions, index, one_hot)):
            if jacobian is not None and tangent is not None:
                jacobian[row] = tangent
    return jacobians
