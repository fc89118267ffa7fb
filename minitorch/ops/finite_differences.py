r"""``torch.gradient``: derivatives of sampled values by finite differences.

Along each chosen dimension the interior uses central differences, second-order accurate,
and the two ends one-sided differences of order ``edge_order`` (1 or 2). The spacing is one
number for every dimension, one number per dimension, or per dimension a 1-d tensor of
coordinates (unevenly spaced samples). Written with slices and arithmetic of tensors, in
PyTorch's order of operations, so the values agree bit for bit and autograd comes with them.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Sequence, Union

from ..creation import cat
from ..shapes import normalize_dim
from ..tensor import Tensor

#: the one-sided difference orders PyTorch offers at the two ends
EDGE_ORDERS = (1, 2)
Spacing = Union[Number, Sequence[Union[Number, Tensor]], None]


def _dims(input: Tensor, dim: Union[int, Sequence[int], None]) -> list[int]:  # noqa: A002
    """The dimensions to differentiate along, normalised, each at most once."""
    if dim is None:
        return list(range(input.dim()))
    listed = [dim] if isinstance(dim, int) else list(dim)
    dims = [normalize_dim(d, input.dim()) for d in listed]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims


def _spacings(spacing: Spacing, dims: list[int], dim_given: bool, rank: int) -> list[Any]:
    """One spacing (a number or a coordinate tensor) per dimension in ``dims``."""
    if spacing is None:
        return [1] * len(dims)
    if isinstance(spacing, (Number, Tensor)) and not (isinstance(spacing, Tensor) and spacing.dim()):
        return [spacing.item() if isinstance(spacing, Tensor) else spacing] * len(dims)
    spacings = list(spacing)
    if len(spacings) != len(dims):
        if dim_given:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to "
                f"have the same length, but got a spacing argument of length {len(spacings)} and a dim argument "
                f"of length {len(dims)}.")
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
            f"'self.dim() = {rank}', since dim argument was not given, but got a list of length {len(spacings)}")
    kinds = {isinstance(s, Tensor) for s in spacings}
    if len(kinds) > 1:
        number = next(i for i, s in enumerate(spacings) if not isinstance(s, Tensor))
        raise TypeError(f"expected Tensor as element {number} in argument 1, but got {type(spacings[number]).__name__}")
    for s in spacings:
        if isinstance(s, Tensor) and s.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, "
                               f"but got an element with {s.dim()} dimensions!")
    return spacings


def _uniform(input: Tensor, d: int, h: Any, edge_order: int) -> Tensor:  # noqa: A002
    """Differences along ``d`` for samples ``h`` apart."""
    n = input.shape[d]
    center = (input.narrow(d, 2, n - 2) - input.narrow(d, 0, n - 2)) / h
    first, second, third = (input.narrow(d, i, 1) for i in range(3))
    last, before, third_last = (input.narrow(d, n - 1 - i, 1) for i in range(3))
    if edge_order == 1:
        prepend = (second - first) / h
        append = (last - before) / h
    else:
        prepend = (-1.5 * first + 2 * second - 0.5 * third) / h
        append = (0.5 * third_last - 2 * before + 1.5 * last) / h
    return cat([prepend, center / 2, append], d)


def _along_shape(t: Tensor, d: int, rank: int) -> Tensor:
    """A 1-d tensor shaped to broadcast along dimension ``d`` of a ``rank``-d tensor."""
    shape = [1] * rank
    shape[d] = -1
    return t.reshape(shape)


def _coordinates(input: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:  # noqa: A002
    """Differences along ``d`` for samples at the (possibly uneven) positions ``coords``."""
    n, rank = input.shape[d], input.dim()
    dx = coords.diff()
    dx1, dx2 = dx[:-1], dx[1:]
    a = _along_shape(-dx2 / (dx1 * (dx1 + dx2)), d, rank)
    b = _along_shape((dx2 - dx1) / (dx1 * dx2), d, rank)
    c = _along_shape(dx1 / (dx2 * (dx1 + dx2)), d, rank)
    center = a * input.narrow(d, 0, n - 2) + b * input.narrow(d, 1, n - 2) + c * input.narrow(d, 2, n - 2)
    first, second, third = (input.narrow(d, i, 1) for i in range(3))
    last, before, third_last = (input.narrow(d, n - 1 - i, 1) for i in range(3))
    if edge_order == 1:
        prepend = (second - first) / dx[0]
        append = (last - before) / dx[-1]
    else:
        h0, h1, hl, hb = dx[0], dx[1], dx[-1], dx[-2]
        prepend = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * first + (h0 + h1) / (h0 * h1) * second
                   + (-h0) / (h1 * (h0 + h1)) * third)
        append = (hl / (hb * (hl + hb)) * third_last - (hl + hb) / (hl * hb) * before
                  + (2 * hl + hb) / (hl * (hl + hb)) * last)
    return cat([prepend, center, append], d)


def gradient(input: Tensor, *, spacing: Spacing = None, dim: Union[int, Sequence[int], None] = None,  # noqa: A002
             edge_order: int = 1) -> tuple[Tensor, ...]:
    r"""The derivative of ``input`` along each dimension in ``dim`` (all by default), one tensor each.

    Interior points use :math:`(f_{i+1} - f_{i-1}) / 2h` (the second-order formula for uneven
    coordinates); the ends use one-sided differences of order ``edge_order``.
    """
    dims = _dims(input, dim)
    if edge_order not in EDGE_ORDERS:
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    spacings = _spacings(spacing, dims, dim is not None, input.dim())
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return tuple(_coordinates(input, d, s, edge_order) if isinstance(s, Tensor) else _uniform(input, d, s, edge_order)
                 for d, s in zip(dims, spacings))


EXPORTS = {"gradient": gradient}
