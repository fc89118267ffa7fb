"""The matrix norms of the singular values: nuclear (``'nuc'``, their sum), spectral (``2``, the
largest) and ``-2`` (the smallest), for ``linalg.matrix_norm``, ``linalg.norm`` and ``torch.norm``.

The other orders are :mod:`.reductions_extra`'s, which sits below the SVD (``Tensor`` inherits
it), so these are a layer above it: the singular values come from ``svdvals`` and autograd
follows through them.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ..dtypes import LOW_PRECISION_FLOATS, scalar_type_name
from ..tensor import Tensor
from . import reductions_extra
from .decompositions import svdvals

#: the orders computed from singular values
SINGULAR_VALUE_ORDERS = ("nuc", 2, -2)


def _is_singular_value_order(ord: Any) -> bool:  # noqa: A002 - PyTorch's name
    return isinstance(ord, (str, int, float)) and not isinstance(ord, bool) and ord in SINGULAR_VALUE_ORDERS


def _matrix_dims(A: Tensor, dim: Sequence[int]) -> tuple[int, int]:  # noqa: N803
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    rows, cols = (d % A.dim() for d in dims)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    return rows, cols


def singular_value_norm(A: Tensor, ord: Union[str, int], dim: Sequence[int], keepdim: bool,  # noqa: A002,N803
                        dtype: Any = None) -> Tensor:
    """The nuclear, 2- or -2-norm of the matrices in dims ``dim`` of ``A``."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {scalar_type_name(A.dtype)}")
    if A.dtype in LOW_PRECISION_FLOATS:
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got {scalar_type_name(A.dtype)}")
    rows, cols = _matrix_dims(A, dim)
    values = svdvals(A.movedim((rows, cols), (-2, -1)))
    if ord == "nuc" or values.shape[-1] == 0:  # an empty matrix's norms are all 0
        result = values.sum(-1)
    else:
        result = values.amax(-1) if ord == 2 else values.amin(-1)
    if keepdim:
        for d in sorted((rows, cols)):
            result = result.unsqueeze(d)
    return result


def matrix_norm(A: Tensor, ord: Any = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False,  # noqa: A002,N803
                *, dtype: Any = None) -> Tensor:
    """``torch.linalg.matrix_norm``: ``'fro'``, ``'nuc'``, 1, -1, 2, -2, inf and -inf norms of the
    matrices in dims ``dim``."""
    if _is_singular_value_order(ord):
        return singular_value_norm(A, ord, dim, keepdim, dtype)
    return reductions_extra.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(input: Tensor, p: Any = "fro", dim: Optional[Union[int, Sequence[int]]] = None,  # noqa: A002
         keepdim: bool = False, dtype: Any = None) -> Tensor:
    """``torch.norm``: :func:`.reductions_extra.norm`, and the nuclear norm of the two dims ``dim``
    (all of a 2-D input's when ``dim`` is None)."""
    if p != "nuc":
        return reductions_extra.norm(input, p, dim, keepdim, dtype)
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    dims = tuple(range(input.dim())) if dim is None else dim
    return singular_value_norm(input, "nuc", dims, keepdim, dtype)


# ``Tensor.norm`` (a method of :mod:`.reductions_extra`, below the SVD) hands the nuclear norm here
reductions_extra.nuclear_norm = norm

#: the functions ``minitorch`` exports at its top level, under PyTorch's names
FUNCTIONS = {"norm": norm}
