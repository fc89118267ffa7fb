"""Picking, counting and reshaping helpers PyTorch has at top level: ``combinations``,
``unique_consecutive``, ``mode``, ``unravel_index``, ``split_with_sizes``, ``vander``, ``diagflat``,
``renorm``, ``chain_matmul`` and ``addbmm``.

The differentiable ones (``combinations``, ``vander``, ``diagflat``, ``renorm``, ``chain_matmul``,
``addbmm``, ``mode``'s values) are compositions of existing ops; counting is done with NumPy.
"""

from __future__ import annotations

import itertools
import operator
import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..creation import cat, ones, tensor as make_tensor
from ..out_argument import write_out
from ..return_types import mode as mode_result
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods, where
from .diagonal import diag
from .dtype_refusals import MM_KERNEL, refuse_bool_product


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _positions(values: Any, device: Any) -> Tensor:
    return make_tensor(np.asarray(values, dtype=np.int64), dtype=dtypes.int64, device=device)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:  # noqa: A002
    """Every ``r``-element combination of a vector's elements, one per row (as ``itertools``)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.asarray(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return input[_positions(rows, input.device)]


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
                       dim: Optional[int] = None) -> Any:
    """Each run of equal consecutive elements (or slices along ``dim``) kept once."""
    values = _host(input)
    if dim is None:
        values = values.reshape(-1)
        axis = 0
    else:
        axis = normalize_dim(dim, input.dim())
    n = values.shape[axis]
    moved = np.moveaxis(values, axis, 0).reshape(n, -1)
    starts = np.ones(n, dtype=bool)
    if n > 1:
        starts[1:] = np.any(moved[1:] != moved[:-1], axis=1)
    first = np.flatnonzero(starts)
    kept = np.take(values, first, axis=axis)
    out = make_tensor(kept, dtype=input.dtype, device=input.device)
    result = [out]
    if return_inverse:
        inverse = np.cumsum(starts) - 1
        result.append(_positions(inverse.reshape(input.shape) if dim is None else inverse, input.device))
    if return_counts:
        result.append(_positions(np.diff(np.append(first, n)), input.device))
    return result[0] if len(result) == 1 else tuple(result)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of a tie) and the
    index of its last occurrence."""
    if input.dim() == 0:
        normalize_dim(dim, 1)
        return mode_result(input.clone(), _positions(0, input.device))
    dim = normalize_dim(dim, input.dim())
    if input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    rows = np.moveaxis(_host(input), dim, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    indices = np.empty(flat.shape[0], dtype=np.int64)
    for r, row in enumerate(flat):
        uniques, counts = np.unique(row, return_counts=True)  # sorted: argmax picks the smallest of a tie
        value = uniques[np.argmax(counts)]
        indices[r] = np.flatnonzero(row == value)[-1]
    index = _positions(indices.reshape(rows.shape[:-1]), input.device).unsqueeze(dim)
    values = input.gather(dim, index)  # a gather, so the values carry the gradient
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return mode_result(values, index)


def unravel_index(indices: Tensor, shape: Union[int, Sequence[int]]) -> tuple[Tensor, ...]:
    """The coordinates in an array of ``shape`` of flat (row-major) ``indices``: one tensor per dimension."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype == dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    elif not isinstance(shape, Sequence):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for size in shape:
        if not isinstance(size, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
    shape = tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = list(reversed(list(itertools.accumulate(reversed(shape[1:] + (1,)), func=operator.mul))))
    flat = indices.to(dtypes.int64).unsqueeze(-1)
    coordinates = flat.floor_divide(_positions(strides, indices.device)) % _positions(shape, indices.device)
    return coordinates.unbind(-1)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``input`` cut along ``dim`` into pieces of exactly ``split_sizes``."""
    dim_index = normalize_dim(dim, input.dim())
    size = input.shape[dim_index]
    if sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={list(split_sizes)}")
    return tuple(input.split(list(split_sizes), dim))


def vander(x: Tensor, N: Optional[int] = None, increasing: bool = False) -> Tensor:  # noqa: N803 - PyTorch's name
    r"""The Vandermonde matrix: column :math:`j` is :math:`x^{N-1-j}` (:math:`x^j` with ``increasing``);
    integers and bools give int64."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    kind = x.dtype if x.dtype.is_floating_point else dtypes.int64
    columns = ones(x.shape[0], min(n, 1), dtype=kind, device=x.device)
    if n > 1:  # running products, as PyTorch's: differentiable, exact for integers
        powers = x.to(kind).unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)
        columns = cat([columns, powers], 1)
    return columns if increasing else columns.flip(1)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    """A square matrix with the flattened ``input`` on diagonal ``offset``."""
    return diag(input.reshape(-1), offset)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:  # noqa: A002
    r"""Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (by :math:`\mathrm{maxnorm} / (\lVert s \rVert_p + 10^{-7})`, as PyTorch's)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {dtypes.scalar_type_name(input.dtype)}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got {p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    dim = normalize_dim(dim, input.dim())
    others = [d for d in range(input.dim()) if d != dim]
    if not others:
        norms = input.abs()
    else:
        norms = input.norm(p, dim=others, keepdim=True)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return input * factor.to(input.dtype)


def chain_matmul(*matrices: Tensor, out: Optional[Tensor] = None) -> Tensor:
    """The product of 2-D matrices, left to right (deprecated in PyTorch for ``linalg.multi_dot``)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for matrix in matrices:
        if matrix.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {matrix.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return write_out(matrices[0].clone(), out, "chain_matmul")
    result = matrices[0]
    for matrix in matrices[1:]:
        result = result @ matrix
    return write_out(result, out, "chain_matmul")


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1,  # noqa: A002
           alpha: float = 1) -> Tensor:
    r""":math:`\beta\,\mathrm{input} + \alpha \sum_b \mathrm{batch1}_b \mathrm{batch2}_b`."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    # PyTorch's addbmm: one mm per batch into the same sum
    refuse_bool_product(MM_KERNEL, batch1.dtype if batch1.dtype is batch2.dtype else None, batch1.shape, batch2.shape)
    products = (batch1 @ batch2).sum(0)
    scaled = products if alpha == 1 else products * alpha
    if beta == 0:  # PyTorch ignores input then (its NaNs included), keeping its broadcast shape
        return scaled + input.detach().new_zeros(input.shape)
    return (input if beta == 1 else input * beta) + scaled


def _renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """In-place :func:`renorm`."""
    return self.copy_(renorm(self, p, dim, maxnorm))


def _addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """In-place :func:`addbmm`."""
    return self.copy_(addbmm(self, batch1, batch2, beta=beta, alpha=alpha))


FUNCTIONS = {function.__name__: function for function in (
    addbmm, chain_matmul, combinations, diagflat, mode, renorm, split_with_sizes, unique_consecutive,
    unravel_index, vander,
)}

add_tensor_methods({name: FUNCTIONS[name] for name in (
    "addbmm", "diagflat", "mode", "renorm", "split_with_sizes", "unique_consecutive")} | {
    "addbmm_": _addbmm_,
    "renorm_": _renorm_,
})
