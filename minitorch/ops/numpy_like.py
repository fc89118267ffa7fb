r"""PyTorch's NumPy-style helpers, each a composition of existing ops (so autograd comes with them).

Stacking and splitting (``hstack``, ``vstack``, ``dstack``, ``column_stack``, ``atleast_1d``,
``tensor_split``, ``hsplit``...), flips (``fliplr``, ``flipud``, ``rot90``), differences and
elementwise helpers (``diff``, ``logit``, ``xlogy``, ``deg2rad``, ``sinc``, ``heaviside``, ``fmax``,
``nansum``, ``nanmean``, ``aminmax``...), products (``inner``, ``vdot``, ``addmv``, ``addr``,
``block_diag``, ``cartesian_prod``, ``cov``, ``corrcoef``), index helpers (``tril_indices``,
``searchsorted``, ``bucketize``, ``isin``, ``take``) and the deprecated ``range``.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function
from ..creation import arange, cat, stack, tensor, zeros
from ..return_types import aminmax as aminmax_result
from ..shapes import normalize_dim
from ..tensor import Tensor, _named, add_tensor_methods, result_dtype, where
from .shape_ops import flip
from .elementwise_extra_functions import LogAddExp2, Logit
from .linalg_extra import Vdot
from .opmath import in_float32
from .dtype_refusals import MM_KERNEL, refuse_bool_product, refuse_non_float, refuse_number, refuse_numbers

Sections = Union[int, Sequence[int], Tensor]


# ---- stacking and splitting ----


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor viewed with at least one dimension (one tensor in, one out; else a tuple)."""
    return _each(tensors, lambda t: t.reshape(1) if t.dim() == 0 else t)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor viewed with at least two dimensions: a vector becomes a row."""
    return _each(tensors, lambda t: t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor viewed with at least three dimensions, as NumPy's: ``(n,)`` is ``(1, n, 1)``,
    ``(m, n)`` is ``(m, n, 1)``."""
    def lift(t: Tensor) -> Tensor:
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.reshape(1, -1, 1)
        return t.unsqueeze(-1) if t.dim() == 2 else t
    return _each(tensors, lift)


def _each(tensors: tuple[Any, ...], lift: Any) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(lift(t) for t in tensors[0])
    lifted = tuple(lift(t) for t in tensors)
    return lifted[0] if len(lifted) == 1 else lifted


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along the columns: dimension 1, or 0 for vectors."""
    lifted = atleast_1d(list(tensors))
    return cat(lifted, 0 if lifted[0].dim() == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along the rows, vectors first made rows."""
    return cat(atleast_2d(list(tensors)), 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along the third dimension (depth)."""
    return cat(atleast_3d(list(tensors)), 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Vectors as columns, side by side (matrices joined as they are)."""
    columns = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors]
    return cat(columns, 1)


#: the most pieces ``tensor_split`` makes: PyTorch's vector of tensors cannot be longer
MAX_SECTIONS = 2 ** 60


def tensor_split(input: Tensor, indices_or_sections: Sections, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """Views of ``input`` along ``dim``: ``n`` nearly equal parts (the first ``size % n`` one longer),
    or the parts between the given indices."""
    d = normalize_dim(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        if sections > MAX_SECTIONS:  # PyTorch cannot hold that many views; a loop over them would never end
            raise RuntimeError("cannot create std::vector larger than max_size()")
        base, extra = divmod(size, sections)
        bounds = [i * base + min(i, extra) for i in range(sections + 1)]
    else:
        bounds = [0] + [min(max(int(i) + (size if int(i) < 0 else 0), 0), size) for i in indices_or_sections] + [size]
    return tuple(input.narrow(d, start, max(end - start, 0)) if end > start else input.narrow(d, min(start, size), 0)
                 for start, end in zip(bounds[:-1], bounds[1:]))


def _split_along(input: Tensor, sections: Sections, dim: int, name: str, least: int) -> tuple[Tensor, ...]:  # noqa: A002
    if input.dim() < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    if isinstance(sections, int) and input.shape[dim] % sections:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input: Tensor, sections: Sections) -> tuple[Tensor, ...]:  # noqa: A002
    return _split_along(input, sections, 0 if input.dim() == 1 else 1, "hsplit", 1)


def vsplit(input: Tensor, sections: Sections) -> tuple[Tensor, ...]:  # noqa: A002
    return _split_along(input, sections, 0, "vsplit", 2)


def dsplit(input: Tensor, sections: Sections) -> tuple[Tensor, ...]:  # noqa: A002
    return _split_along(input, sections, 2, "dsplit", 3)


# ---- flips ----


def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:  # noqa: A002
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:  # noqa: A002
    """Rotated by ``k`` quarter turns from the first of ``dims`` towards the second."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    first, second = (normalize_dim(d, input.dim()) for d in dims)
    if first == second:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {first} and dim1 = {second}")
    turns = k % 4
    if turns == 1:
        return flip(input, (second,)).transpose(first, second)
    if turns == 2:
        return flip(input, (first, second))
    if turns == 3:
        return flip(input, (first,)).transpose(first, second)
    return input.clone()


# ---- differences and elementwise helpers ----


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,  # noqa: A002
         append: Optional[Tensor] = None) -> Tensor:
    r"""The ``n``-th forward difference along ``dim``: :math:`x_{i+1} - x_i`, applied ``n`` times."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = normalize_dim(dim, input.dim())
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        later, earlier = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = (later != earlier) if x.dtype is dtypes.bool_ else later - earlier
    return x


def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:  # noqa: A002
    r""":math:`\log\frac{p}{1 - p}`, with :math:`p` clamped to :math:`[\epsilon, 1 - \epsilon]` when ``eps`` is given."""
    if not input.dtype.is_floating_point:  # integers and bools are read as the default float
        input = input.to(dtypes.get_default_dtype())
    return Logit.apply(input, eps)


class XLogY(Function):
    r""":math:`x \log y`, 0 where :math:`x = 0` (NaN where :math:`y` is NaN), with
    :math:`\partial_x = \log y` (0 where :math:`x = 0` and :math:`y \le 0`, as PyTorch) and
    :math:`\partial_y = x / y`. Written out: through ``where`` the derivative in :math:`x` at
    :math:`x = 0` would be 0, and :math:`0 \cdot \log 0` would make it NaN."""

    grad_fn_name = "XlogyBackward0"

    @staticmethod
    def forward(ctx: Context, x: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(x, y)
        product = x * y.log()
        return where((x == 0) & (y == y), zeros((), dtype=product.dtype), product)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], Optional[Tensor]]:
        x, y = ctx.saved_tensors
        grad_x = where((x == 0) & (y <= 0), 0.0, grad * y.log()) if ctx.needs_input_grad[0] else None
        grad_y = grad * x / y if ctx.needs_input_grad[1] else None
        return grad_x, grad_y


def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    r""":math:`x \log y`, 0 where :math:`x = 0` (unless :math:`y` is NaN)."""
    x = input if isinstance(input, Tensor) else tensor(input, dtype=dtypes.get_default_dtype())
    y = other if isinstance(other, Tensor) else tensor(float(other), dtype=x.dtype if x.dtype.is_floating_point else None)
    common = result_dtype(x, y)  # promoted before the log: a float32 y beside a float64 x is logged in float64
    if not common.is_floating_point:
        common = dtypes.get_default_dtype()
    return XLogY.apply(x.to(common), y.to(common))


def deg2rad(input: Tensor) -> Tensor:  # noqa: A002
    return _named(input * (math.pi / 180.0), "Deg2RadBackward0")


def rad2deg(input: Tensor) -> Tensor:  # noqa: A002
    return _named(input * (180.0 / math.pi), "Rad2DegBackward0")


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    r""":math:`\log_2(2^a + 2^b)`, computed stably."""
    refuse_numbers("logaddexp2", input, other)
    common = result_dtype(input, other)  # a bool or integer beside a float is promoted to it
    refuse_non_float("logaddexp2_cpu", common)
    a, b = (t if t.dtype is common else t.to(common) for t in (input, other))
    return _logaddexp2(a, b)


def _logaddexp2_op(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return LogAddExp2.apply(input, other)  # looked up at each call: a profile swaps apply


# PyTorch's kernel: 16-bit floats in float32, rounded once; (inf, x) is inf, equal infinities themselves
_logaddexp2 = in_float32(_logaddexp2_op)


def sinc(input: Tensor) -> Tensor:  # noqa: A002
    r""":math:`\sin(\pi x) / (\pi x)`, 1 at 0."""
    scaled = input * math.pi
    safe = where(scaled == 0, 1.0, scaled)
    return _named(where(scaled == 0, 1.0, safe.sin() / safe), "SincBackward0")


def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    """0 below zero, 1 above, ``values`` at zero."""
    refuse_numbers("heaviside", input, values, "values")
    if isinstance(values, Tensor) and values.dtype is not input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    step = (input > 0).to(input.dtype)
    return where(input == 0, values.to(input.dtype), step)


def fmax(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    r"""The larger of the two, a NaN losing to a number (unlike ``maximum``). The gradient goes
    whole to ``input`` where :math:`x \ge y` or ``other`` is NaN (ties too), else to ``other``, as PyTorch's."""
    refuse_numbers("fmax", input, other)
    return _named(where((input >= other) | (other != other), input, other), "FmaxBackward0")


def fmin(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    r"""The smaller of the two, a NaN losing to a number (unlike ``minimum``). The gradient goes
    whole to ``input`` where :math:`x \le y` or ``other`` is NaN (ties too), else to ``other``, as PyTorch's."""
    refuse_numbers("fmin", input, other)
    return _named(where((input <= other) | (other != other), input, other), "FminBackward0")


def positive(input: Tensor) -> Tensor:  # noqa: A002
    """``input`` itself, as ``+x``."""
    if input.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """The sum with NaNs counted as 0."""
    if not input.dtype.is_floating_point:  # no NaN to drop: integers sum to int64, as in sum
        return input.sum(dim, keepdim, dtype=dtype)
    return where(input != input, 0.0, input).sum(dim, keepdim, dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """The mean of the values that are not NaN."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{dtypes.scalar_type_name(input.dtype)}")
    kept = (input == input).to(input.dtype)
    return nansum(input, dim, keepdim, dtype=dtype) / kept.sum(dim, keepdim)


def aminmax(input: Tensor, *, dim: Optional[int] = None, keepdim: bool = False) -> Any:  # noqa: A002
    """``(min, max)`` over ``dim`` (everything by default)."""
    dims = () if dim is None else dim  # no dims: all of them
    return aminmax_result(input.amin(dims, keepdim), input.amax(dims, keepdim))


# ---- products ----


def inner(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Sum of products over the last dimension of each (a product with a number when one is 0-d)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    if other.dim() == 1 and input.dim() == 1:
        return input @ other
    # PyTorch's inner is a tensordot: one mm of the flattened operands
    refuse_bool_product(MM_KERNEL, input.dtype if input.dtype is other.dtype else None, input.shape, other.shape)
    if other.dim() == 1:
        return input @ other
    return (input.reshape(-1, input.shape[-1]) @ other.reshape(-1, other.shape[-1]).t()).reshape(
        tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def vdot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The dot product of two vectors (real tensors: no conjugation): ``dot``'s checks and product,
    recorded as PyTorch records ``vdot`` (``VdotBackward0``, saving ``self`` and ``other``)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    product = input.dot(other)
    node = product.grad_fn
    if node is not None and node.ctx is not None:  # dot's node, under vdot's name and saved names
        node.ctx.grad_fn_name = Vdot.grad_fn_name
        node.__class__ = Vdot.node_class
    return product


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:  # noqa: A002
    r""":math:`\beta\,\text{input} + \alpha\,(M v)`."""
    product = mat @ vec
    return (input * beta if beta != 1 else input) + (product * alpha if alpha != 1 else product)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:  # noqa: A002
    r""":math:`\beta\,\text{input} + \alpha\,(v_1 \otimes v_2)`."""
    outer = vec1.unsqueeze(1) * vec2.unsqueeze(0)
    return (input * beta if beta != 1 else input) + (outer * alpha if alpha != 1 else outer)


def block_diag(*tensors: Tensor) -> Tensor:
    """The matrices (vectors as rows, numbers as 1x1) along the diagonal, zeros elsewhere."""
    blocks = [t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t for t in tensors]
    for t in blocks:
        if t.dim() != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has {t.dim()} dimensions")
    width = sum(t.shape[1] for t in blocks)
    rows = []
    left = 0
    for t in blocks:
        pieces = [p for p in (zeros(t.shape[0], left, dtype=t.dtype), t,
                              zeros(t.shape[0], width - left - t.shape[1], dtype=t.dtype)) if p.shape[1]]
        rows.append(cat(pieces, 1) if pieces else zeros(t.shape[0], 0, dtype=t.dtype))
        left += t.shape[1]
    return cat(rows, 0) if rows else zeros(0, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each vector, one per row."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    sizes = [t.shape[0] for t in tensors]
    columns = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = sizes[i]
        columns.append(t.reshape(shape).expand(*sizes).reshape(-1))
    return stack(columns, 1)


def cov(input: Tensor, *, correction: int = 1, fweights: Optional[Tensor] = None,  # noqa: A002
        aweights: Optional[Tensor] = None) -> Tensor:
    r"""The covariance of the variables in the rows of ``input`` over the observations in its columns."""
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if x.dim() != 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions")
    if x.dtype is dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if fweights is not None and (fweights.dtype.is_floating_point or fweights.dtype is dtypes.bool_):
        raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with "
                           f"{dtypes.scalar_type_name(fweights.dtype)} dtype")
    if aweights is not None and not aweights.dtype.is_floating_point:
        raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{dtypes.scalar_type_name(aweights.dtype)} dtype")
    if not x.dtype.is_floating_point:
        x = x.to(dtypes.get_default_dtype())
    weights = None
    if fweights is not None:
        weights = fweights.to(x.dtype)
    if aweights is not None:
        weights = aweights.to(x.dtype) if weights is None else weights * aweights.to(x.dtype)
    if weights is None:
        total = float(x.shape[1])
        mean = x.mean(1, keepdim=True)
        norm = total - correction
    else:
        total_t = weights.sum()
        mean = (x * weights).sum(1, keepdim=True) / total_t
        if correction == 0:
            norm = total_t
        elif aweights is None:
            norm = total_t - correction
        else:
            norm = total_t - correction * (weights * aweights.to(x.dtype)).sum() / total_t
    centered = x - mean
    weighted = centered * weights if weights is not None else centered
    result = (weighted @ centered.t()) / (norm if not isinstance(norm, float) else max(norm, 0.0))
    return result.squeeze() if input.dim() == 1 else result


def corrcoef(input: Tensor) -> Tensor:  # noqa: A002
    """Pearson correlation coefficients of the rows, clipped to [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


# ---- index helpers (no gradient) ----


def _indices(rows: int, cols: int, offset: int, upper: bool, dtype: Any, device: Any) -> Tensor:
    for name, size in (("row", rows), ("col", cols)):
        if size < 0:
            raise RuntimeError(f"{name} must be non-negative, got{size}")  # PyTorch's wording, space and all
    found = np.triu_indices(rows, offset, cols) if upper else np.tril_indices(rows, offset, cols)
    return tensor(np.stack(found).astype(np.int64), dtype=dtype or dtypes.int64, device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Tensor:
    """The (row, column) indices of the lower triangle (on and below diagonal ``offset``), shape ``(2, N)``."""
    return _indices(row, col, offset, False, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Tensor:
    """The (row, column) indices of the upper triangle (on and above diagonal ``offset``), shape ``(2, N)``."""
    return _indices(row, col, offset, True, dtype, device)


#: the operands PyTorch's ``searchsorted`` (and ``bucketize``) copies when not contiguous, named as its warnings
#: name them, in the order it checks them
NON_CONTIGUOUS_OPERANDS = ("input value", "boundary", "sorter")


@functools.cache
def warn_non_contiguous(operand: str) -> None:
    """PyTorch's warning that a non-contiguous ``operand`` is copied, once a process for each operand (as its
    ``TORCH_WARN_ONCE``; ``cache_clear`` re-arms it)."""
    warnings.warn(f"torch.searchsorted(): {operand} tensor is non-contiguous, this will lower the performance due to "
                  "extra data copy when converting non-contiguous tensor to contiguous, please use contiguous "
                  f"{operand} tensor if possible. This message will only appear once per program.", UserWarning,
                  stacklevel=4)


def _warn_if_non_contiguous(input: Any, sorted_sequence: Tensor, sorter: Optional[Tensor]) -> None:  # noqa: A002
    """PyTorch's warnings for the non-contiguous tensors among the operands (none for an empty ``input``,
    which PyTorch returns before copying anything)."""
    if isinstance(input, Tensor) and input.numel() == 0:
        return
    for operand, given in zip(NON_CONTIGUOUS_OPERANDS, (input, sorted_sequence, sorter)):
        if isinstance(given, Tensor) and not given.is_contiguous():
            warn_non_contiguous(operand)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,  # noqa: A002
                 side: Optional[str] = None, sorter: Optional[Tensor] = None) -> Tensor:
    """Where each value would go in the last dimension of ``sorted_sequence`` to keep it sorted."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    sequence = sorted_sequence.detach().cpu().numpy()
    if sorter is not None:
        sequence = np.take_along_axis(sequence, _checked_sorter(sorter, sorted_sequence), -1)
    values = input.detach().cpu().numpy() if isinstance(input, Tensor) else np.asarray(input)
    how = "right" if right else "left"
    if sequence.ndim == 1:
        found = np.searchsorted(sequence, values, side=how)
    else:
        if values.shape[:-1] != sequence.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                f"tensor and input value tensor must match, but we got boundaries tensor {list(sequence.shape)} and "
                f"input value tensor {list(values.shape)}")
        rows = math.prod(sequence.shape[:-1])  # counted, not inferred: a last dimension may be empty
        flat_seq = sequence.reshape(rows, sequence.shape[-1])
        flat_val = values.reshape(rows, values.shape[-1])
        found = np.array([np.searchsorted(s, v, side=how) for s, v in zip(flat_seq, flat_val)],
                         dtype=np.int64).reshape(values.shape)
    _warn_if_non_contiguous(input, sorted_sequence, sorter)
    return tensor(found.astype(np.int32 if out_int32 else np.int64), device=sorted_sequence.device)


def _checked_sorter(sorter: Tensor, sorted_sequence: Tensor) -> np.ndarray:
    """``sorter``'s values, after PyTorch's checks: int64, the boundaries' shape, each in range."""
    if sorter.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                           f"{dtypes.scalar_type_name(sorter.dtype)}")
    if sorter.shape != sorted_sequence.shape:
        raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                           f"{list(sorted_sequence.shape)}and got sorter tensor {list(sorter.shape)}")
    order = sorter.detach().cpu().numpy()
    if order.size and (order.min() < 0 or order.max() >= sorted_sequence.shape[-1]):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")
    return order


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:  # noqa: A002
    """The bucket of each value among 1-D ``boundaries`` (``right``: buckets closed on the left)."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each of ``elements`` is among ``test_elements``."""
    values = elements.detach().cpu().numpy() if isinstance(elements, Tensor) else np.asarray(elements)
    pool = test_elements.detach().cpu().numpy() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    found = np.isin(values, pool, invert=invert)
    device = elements.device if isinstance(elements, Tensor) else None
    return tensor(found, dtype=dtypes.bool_, device=device)


def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    """The elements of ``input`` at the flat positions ``index`` (as if it were 1-D), in ``index``'s shape."""
    flat = input.reshape(-1)
    size = flat.shape[0]
    if index.numel() and (int(index.max()) >= size or int(index.min()) < -size):
        bad = int(index.max()) if int(index.max()) >= size else int(index.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} elements.")
    return flat[index.reshape(-1)].reshape(index.shape)


def inclusive_range(start: float = 0, end: Optional[float] = None, step: float = 1, *, dtype: Any = None,
                    device: Any = None, requires_grad: bool = False) -> Tensor:
    """``torch.range``, deprecated in PyTorch (use ``arange``): ``start`` to ``end`` *inclusive*, in
    the default float dtype. (Named apart here so it never shadows Python's ``range``.)"""
    if end is None:
        start, end = 0, start
    count = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(max(count, 0), dtype=np.float64)
    return tensor(values, dtype=dtype or dtypes.get_default_dtype(), device=device, requires_grad=requires_grad)


class NumpyLikeMethods:
    """The methods of these ops on :class:`~minitorch.tensor.Tensor`."""

    def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,
             append: Optional[Tensor] = None) -> Tensor:
        return diff(self, n, dim, prepend, append)

    def logit(self: Tensor, eps: Optional[float] = None) -> Tensor:
        return logit(self, eps)

    def xlogy(self: Tensor, other: Any) -> Tensor:
        return xlogy(self, other)

    def deg2rad(self: Tensor) -> Tensor:
        return deg2rad(self)

    def rad2deg(self: Tensor) -> Tensor:
        return rad2deg(self)

    def logaddexp2(self: Tensor, other: Tensor) -> Tensor:
        refuse_number("logaddexp2", other, "other", 1)
        return logaddexp2(self, other)

    def sinc(self: Tensor) -> Tensor:
        return sinc(self)

    def heaviside(self: Tensor, values: Tensor) -> Tensor:
        refuse_number("heaviside", values, "values", 1)
        return heaviside(self, values)

    def fmax(self: Tensor, other: Tensor) -> Tensor:
        refuse_number("fmax", other, "other", 1)
        return fmax(self, other)

    def fmin(self: Tensor, other: Tensor) -> Tensor:
        refuse_number("fmin", other, "other", 1)
        return fmin(self, other)

    def positive(self: Tensor) -> Tensor:
        return positive(self)

    def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        return nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        return nanmean(self, dim, keepdim, dtype=dtype)

    def aminmax(self: Tensor, *, dim: Optional[int] = None, keepdim: bool = False) -> Any:
        return aminmax(self, dim=dim, keepdim=keepdim)

    def inner(self: Tensor, other: Tensor) -> Tensor:
        return inner(self, other)

    def vdot(self: Tensor, other: Tensor) -> Tensor:
        return vdot(self, other)

    def addmv(self: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def tensor_split(self: Tensor, indices_or_sections: Sections, dim: int = 0) -> tuple[Tensor, ...]:
        return tensor_split(self, indices_or_sections, dim)

    def hsplit(self: Tensor, sections: Sections) -> tuple[Tensor, ...]:
        return hsplit(self, sections)

    def vsplit(self: Tensor, sections: Sections) -> tuple[Tensor, ...]:
        return vsplit(self, sections)

    def dsplit(self: Tensor, sections: Sections) -> tuple[Tensor, ...]:
        return dsplit(self, sections)

    def fliplr(self: Tensor) -> Tensor:
        return fliplr(self)

    def flipud(self: Tensor) -> Tensor:
        return flipud(self)

    def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
        return rot90(self, k, dims)

    def cov(self: Tensor, *, correction: int = 1, fweights: Optional[Tensor] = None,
            aweights: Optional[Tensor] = None) -> Tensor:
        return cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self: Tensor) -> Tensor:
        return corrcoef(self)

    def isin(self: Tensor, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
        return isin(self, test_elements, assume_unique=assume_unique, invert=invert)

    def take(self: Tensor, index: Tensor) -> Tensor:
        return take(self, index)


add_tensor_methods({name: m for name, m in vars(NumpyLikeMethods).items() if not name.startswith("__")})

#: the functions ``minitorch/__init__.py`` exports at the top level, by PyTorch's names
EXPORTS = {function.__name__: function for function in (
    addmv, addr, aminmax, atleast_1d, atleast_2d, atleast_3d, block_diag, bucketize, cartesian_prod,
    column_stack, corrcoef, cov, deg2rad, diff, dsplit, dstack, fliplr, flipud, fmax, fmin,
    heaviside, hsplit, hstack, inner, isin, logaddexp2, logit, nanmean, nansum, positive, rad2deg,
    rot90, searchsorted, sinc, take, tensor_split, tril_indices, triu_indices, vdot, vsplit, vstack, xlogy,
)} | {"row_stack": row_stack, "range": inclusive_range}
