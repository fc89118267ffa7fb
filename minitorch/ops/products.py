r"""Products and distances built from matmul, broadcasting and reductions.

``tensordot`` and ``baddbmm`` are a matmul after a permute and reshape; ``kron`` is a
broadcast product of interleaved dimensions, :math:`(A \otimes B)_{(i k)(j l)} = A_{ij} B_{kl}`;
``cross`` picks components, :math:`(a \times b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}` (indices
mod 3); ``cdist`` is the :math:`p`-norm of every pairwise difference, and
``cosine_similarity`` the dot product of the two vectors, each divided by its norm.
Their gradients come from the ops they are made of.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..creation import tensor as make_tensor
from ..shapes import normalize_dim
from ..tensor import Tensor, add_tensor_methods, where
from ..tensor_data import shape_broadcast
from ..toplevel import _into, bmm
from .dtype_refusals import DOT_KERNEL, MM_KERNEL, refuse_bool_product


def _expand_error(target: Sequence[int], shape: Sequence[int]) -> str:
    for k in range(1, len(shape) + 1):
        if shape[-k] not in (1, target[-k]):
            return (f"The expanded size of the tensor ({target[-k]}) must match the existing size ({shape[-k]}) at "
                    f"non-singleton dimension {len(target) - k}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}")
    return f"The expanded size of the tensor does not fit: target sizes {list(target)}, tensor sizes {list(shape)}"


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:  # noqa: A002
    r"""PyTorch's ``torch.baddbmm``: :math:`\beta\,\text{input} + \alpha\,(\text{batch1} \mathbin{@} \text{batch2})`,
    one matrix product per batch; with ``beta=0`` ``input`` is ignored (its NaNs too)."""
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    b, n, m = batch1.shape
    if batch2.shape[:2] != (b, m):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: [{batch2.shape[0]}, {batch2.shape[1]}]."
        )
    target = (b, n, batch2.shape[2])
    if len(input.shape) > len(target) or any(s not in (1, t) for s, t in zip(reversed(input.shape), reversed(target))):
        raise RuntimeError(_expand_error(target, tuple(input.shape)))
    refuse_bool_product("baddbmm", batch1.dtype if batch1.dtype is batch2.dtype else None, batch1.shape, batch2.shape)
    product = batch1 @ batch2
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:  # input's values (NaNs too) are ignored; it still gets a (zero) gradient, as in PyTorch
        return scaled + where(make_tensor(False, device=input.device), input, 0.0)
    return scaled + (input if beta == 1 else input * beta)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Optional[Tensor] = None) -> Tensor:
    """PyTorch's ``torch.tensordot``: the sum over paired dimensions of ``a`` and ``b``; ``dims`` is how many
    last dimensions of ``a`` meet as many first dimensions of ``b``, or two lists of dimensions."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [normalize_dim(d, a.dim()) for d in dims_a]
    dims_b = [normalize_dim(d, b.dim()) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} and second has size "
                f"{b.shape[db]} in dim {db}"
            )
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    size = math.prod(a.shape[d] for d in dims_a)
    # PyTorch's tensordot: one dot when both are contracted whole, else one mm of the flattened operands
    kernel = DOT_KERNEL if not free_a and not free_b else MM_KERNEL
    refuse_bool_product(kernel, a.dtype if a.dtype is b.dtype else None, a.shape, b.shape)
    # the free sizes spelled out: with nothing contracted (size 0) a -1 would be ambiguous
    left = a.permute(*(free_a + dims_a)).reshape(math.prod(a.shape[d] for d in free_a), size)
    right = b.permute(*(dims_b + free_b)).reshape(size, math.prod(b.shape[d] for d in free_b))
    result = (left @ right).reshape(tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))
    if out is not None:
        return _into(out, result, "tensordot")
    return result


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    r"""PyTorch's ``torch.kron``: the Kronecker product, blocks :math:`a_{ij} B` (the shorter shape padded with leading 1s)."""
    rank = max(input.dim(), other.dim())
    sa = (1,) * (rank - input.dim()) + tuple(input.shape)
    sb = (1,) * (rank - other.dim()) + tuple(other.shape)
    a = input.reshape(tuple(v for n in sa for v in (n, 1)))
    b = other.reshape(tuple(v for n in sb for v in (1, n)))
    return (a * b).reshape(tuple(m * n for m, n in zip(sa, sb)))


def meshgrid(*tensors: Any, indexing: Optional[str] = None) -> tuple[Tensor, ...]:
    """PyTorch's ``torch.meshgrid``: each 1-D tensor expanded along its own dimension of the grid
    (``indexing='ij'``; ``'xy'`` swaps the first two, as NumPy's and MATLAB's grids do)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning, stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}-D tensor of shape {list(t.shape)}")
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    vectors = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(vectors) >= 2
    if swap:
        vectors[0], vectors[1] = vectors[1], vectors[0]
    shape = tuple(v.shape[0] for v in vectors)
    grids = [v.reshape(tuple(-1 if k == d else 1 for k in range(len(vectors)))).expand(shape) for d, v in enumerate(vectors)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _components(t: Tensor, dim: int, order: Sequence[int]) -> Tensor:
    return t.index_select(dim, make_tensor(np.asarray(order, dtype=np.int64), dtype=dtypes.int64, device=t.device))


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    r"""PyTorch's ``torch.linalg.cross``: the cross product of 3-vectors along ``dim`` (the operands broadcast)."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input.dtype)} but found {dtypes.scalar_type_name(other.dtype)}")
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = normalize_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}")
    shape = shape_broadcast(tuple(input.shape), tuple(other.shape))
    a, b = input.expand(shape), other.expand(shape)
    next_, after = (1, 2, 0), (2, 0, 1)
    return _components(a, d, next_) * _components(b, d, after) - _components(a, d, after) * _components(b, d, next_)


def cross(input: Tensor, other: Tensor, dim: Optional[int] = None, *, out: Optional[Tensor] = None) -> Tensor:  # noqa: A002
    """PyTorch's ``torch.cross``: ``linalg.cross`` along ``dim``, by default the first dimension of size 3."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a future release.",
            UserWarning, stacklevel=2,
        )
        dim = next((d for d, n in enumerate(input.shape) if n == 3), -1)
    result = linalg_cross(input, other, dim=dim)
    if out is not None:
        return _into(out, result, "cross")
    return result


def _nonzero_root(total: Tensor, p: float) -> Tensor:
    r""":math:`t^{1/p}`, with 0 where :math:`t = 0` and a zero (not NaN) gradient there."""
    positive = total > 0
    safe = where(positive, total, 1.0)
    return where(positive, safe.sqrt() if p == 2 else safe ** (1.0 / p), 0.0)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    r"""PyTorch's ``torch.cdist``: the :math:`p`-norm distance between each row of ``x1`` (``... x P x M``)
    and each row of ``x2`` (``... x R x M``), a ``... x P x R`` tensor; batch dimensions broadcast."""
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if not (x1.dtype.is_floating_point and x2.dtype.is_floating_point):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {dtypes.scalar_type_name(x1.dtype)}")
    return _norms_of_last_dim(x1.unsqueeze(-2) - x2.unsqueeze(-3), p)  # ... x P x R x M differences


def _norms_of_last_dim(diff: Tensor, p: float) -> Tensor:
    """The ``p``-norm of each vector along the last dimension, with a zero gradient at 0."""
    if p == 0:  # a count of the nonzero entries, recorded with its zero gradient as PyTorch's
        return diff.abs().sign().sum(-1)
    if math.isinf(p):
        return diff.abs().amax(-1) if diff.shape[-1] else diff.sum(-1)
    if p == 1:
        return diff.abs().sum(-1)
    powered = (diff * diff) if p == 2 else diff.abs() ** p
    return _nonzero_root(powered.sum(-1), p)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:  # noqa: A002 - PyTorch's name
    r"""PyTorch's ``pdist``: the :math:`p`-norm distance between each pair of rows :math:`i < j` of an
    ``N x M`` input, in the order of the upper triangle read row by row (``N (N - 1) / 2`` values)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not p >= 0:  # nan too
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got: {dtypes.scalar_type_name(input.dtype)}")
    first, second = np.triu_indices(input.shape[0], 1)
    rows = input.new_tensor(first, dtype=dtypes.int64), input.new_tensor(second, dtype=dtypes.int64)
    return _norms_of_last_dim(input[rows[0]] - input[rows[1]], p)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    r"""PyTorch's ``torch.cosine_similarity``: :math:`\sum_d \frac{x_1}{\max(\|x_1\|, \epsilon)} \frac{x_2}{\max(\|x_2\|, \epsilon)}`
    along ``dim`` (the operands broadcast)."""
    shape = shape_broadcast(tuple(x1.shape), tuple(x2.shape))
    a, b = x1.expand(shape), x2.expand(shape)
    d = normalize_dim(dim, len(shape))
    norm_a = (a * a).sum(d, keepdim=True).sqrt().clamp(min=eps)
    norm_b = (b * b).sum(d, keepdim=True).sqrt().clamp(min=eps)
    return ((a / norm_a) * (b / norm_b)).sum(d)


class TensorMethods:
    """``t.baddbmm(...)``, ``t.kron(...)``, ``t.cross(...)`` and the other methods of the ops above (attached below)."""

    def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return self._inplace_apply(lambda old: baddbmm(old, batch1, batch2, beta=beta, alpha=alpha), batch1, batch2)

    def bmm(self, mat2: Tensor) -> Tensor:
        return bmm(self, mat2)

    def kron(self, other: Tensor) -> Tensor:
        return kron(self, other)

    def cross(self, other: Tensor, dim: Optional[int] = None) -> Tensor:
        return cross(self, other, dim)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})
