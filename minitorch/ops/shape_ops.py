"""Shape and selection ops built from views, ``cat``, ``where`` and index reads.

Each op here is a composition of differentiable pieces (``narrow``, ``index_select``, ``expand``,
``permute``, ``where``), so autograd follows it without a rule of its own. The positions an op
reads are worked out on the host with NumPy (they depend on shapes, or on the values of
non-differentiable index tensors such as masks), never by a Python loop over elements.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

import numpy as np

from .. import dtypes
from ..autograd.composite import composite
from ..creation import cat
from ..creation import tensor as make_tensor
from ..shapes import check_storage_size, normalize_dim, shape_from_args
from ..tensor import Tensor, add_tensor_methods, where
from .indexing import gather, index_select
from .scaled_sum import INTEGER_RANGES
from .views import pieces

IntOrSizes = Union[int, Sequence[int]]


def _positions(values: Any, device: Any) -> Tensor:
    return make_tensor(np.asarray(values, dtype=np.int64), dtype=dtypes.int64, device=device)


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _sizes(args: tuple) -> tuple[int, ...]:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else tuple(args)


# ---- splitting ----


def split(tensor: Tensor, split_size_or_sections: IntOrSizes, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``split_size_or_sections`` elements (the last may be shorter), or of the listed sizes."""
    d = normalize_dim(dim, tensor.dim())
    size = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0:
            if size:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
            return (tensor,)
        sizes = [min(step, size - start) for start in range(0, size, step)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != size or any(s < 0 for s in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {d}), "
                f"but got split_sizes={sizes}"
            )
    name = "SplitBackward0" if isinstance(split_size_or_sections, int) else "SplitWithSizesBackward0"
    return pieces(tensor, d, sizes, True, name)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """At most ``chunks`` pieces of equal size (the last may be shorter)."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, input.dim())
    size = input.shape[d]
    return split(input, max(1, math.ceil(size / chunks)), d) if size else split(input, [0] * chunks, d)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """The slices along ``dim``, that dimension removed."""
    d = normalize_dim(dim, input.dim())
    return pieces(input, d, (1,) * input.shape[d], False, "UnbindBackward0")


# ---- reordering ----


def _dims(dims: IntOrSizes, ndim: int) -> list[int]:
    dims = [dims] if isinstance(dims, int) else list(dims)
    normalized = [normalize_dim(d, ndim) for d in dims]
    if len(set(normalized)) != len(normalized):
        raise RuntimeError(f"dims has duplicates, original flip dims size={len(dims)}, but unique flip dims size={len(set(normalized))}")
    return normalized


def flip(input: Tensor, dims: IntOrSizes) -> Tensor:  # noqa: A002
    """The elements in reverse order along each of ``dims``."""
    out = input
    flipped = _dims(dims, input.dim())
    if input.dim() == 0:  # dims 0 and -1 checked above; nothing to reverse
        return input.clone()
    for d in flipped:
        out = index_select(out, d, _positions(np.arange(out.shape[d] - 1, -1, -1), out.device))
    return out


def roll(input: Tensor, shifts: IntOrSizes, dims: Optional[IntOrSizes] = None) -> Tensor:  # noqa: A002
    r"""Elements shifted along ``dims`` with wrap-around: :math:`\mathrm{out}[(i + s) \bmod n] = x[i]`."""
    if dims is None:
        if not isinstance(shifts, int) and len(shifts) != 1:
            raise RuntimeError(f"`shifts` required to be of size 1 when `dims` is not specified, got {len(shifts)}")
        shift = shifts if isinstance(shifts, int) else shifts[0]
        return roll(input.flatten(), shift, 0).view(input.shape)
    shift_list = [shifts] if isinstance(shifts, int) else list(shifts)
    dim_list = [dims] if isinstance(dims, int) else list(dims)
    if len(shift_list) != len(dim_list):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_list)}, dims:{len(dim_list)}")
    out = input
    for shift, dim in zip(shift_list, dim_list):
        d = normalize_dim(dim, input.dim())
        n = out.shape[d]
        if n:
            out = index_select(out, d, _positions((np.arange(n) - shift) % n, out.device))
    return out


def movedim(input: Tensor, source: IntOrSizes, destination: IntOrSizes) -> Tensor:  # noqa: A002
    """Dimensions ``source`` moved to positions ``destination``; the others keep their order."""
    ndim = input.dim()
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same number of dims "
            f"as destination ({dst} dims)"
        )
    src = [normalize_dim(d, ndim) for d in src]
    dst = [normalize_dim(d, ndim) for d in dst]
    if ndim == 0:  # dims 0 and -1 checked above: the tensor itself, as a view
        return input.view(())
    order: list[Optional[int]] = [None] * ndim
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(d for d in range(ndim) if d not in src)
    return input.permute(*[d if d is not None else next(rest) for d in order])


moveaxis = movedim


# ---- repeating ----


def repeat(input: Tensor, *sizes: Any) -> Tensor:  # noqa: A002
    """``input`` tiled ``sizes[d]`` times along each dimension (leading sizes add dimensions)."""
    reps = _sizes(sizes)
    if len(reps) < input.dim():
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    shape = (1,) * (len(reps) - input.dim()) + tuple(input.shape)

    def tiled(x: Tensor) -> Tensor:
        # a fresh row-major copy, never a view: writing into the result must not reach ``input``
        interleaved = x.reshape(tuple(v for n in shape for v in (1, n)))
        expanded = interleaved.expand(tuple(v for r, n in zip(reps, shape) for v in (r, n)))
        return expanded.clone().view(tuple(r * n for r, n in zip(reps, shape)))

    return composite("RepeatBackward0", tiled, input, saves=())


def tile(input: Tensor, dims: Sequence[int]) -> Tensor:  # noqa: A002
    """``repeat`` with missing leading repetitions taken as 1."""
    dims = tuple(dims)
    return repeat(input, (1,) * (input.dim() - len(dims)) + dims)


#: the index dtypes ``torch.repeat_interleave(repeats)`` takes
REPEAT_COUNT_DTYPES = (dtypes.int32, dtypes.int64)


def _repeated_positions(repeats: Any, output_size: Optional[int]) -> Tensor:
    """``torch.repeat_interleave(repeats)``: each position ``i`` written ``repeats[i]`` times."""
    if not isinstance(repeats, Tensor):
        raise TypeError(f"repeat_interleave(): argument 'repeats' (position 1) must be Tensor, not {type(repeats).__name__}")
    if repeats.dtype not in REPEAT_COUNT_DTYPES:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{dtypes.scalar_type_name(repeats.dtype)}'")
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    positions = make_tensor(np.arange(repeats.shape[0]), dtype=repeats.dtype, device=repeats.device)
    return repeat_interleave(positions, repeats, 0, output_size=output_size)


def repeat_interleave(input: Tensor, repeats: Any = None, dim: Optional[int] = None, *,  # noqa: A002
                      output_size: Optional[int] = None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place.

    Given only a 1-D integer tensor of counts, the positions ``0, 1, ...`` each repeated its count.
    """
    if repeats is None:
        return _repeated_positions(input, output_size)
    if dim is None:
        input, dim = input.flatten(), 0  # noqa: A001
    d = normalize_dim(dim, input.dim())
    counts = _host(repeats) if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    n = input.shape[d]
    if counts.ndim == 1 and counts.size != 1 and counts.size != n:
        raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.size} and input.size({d}) = {n}")
    per_element = counts.ndim == 1 and counts.size != 1
    total = sum(int(c) for c in counts) if per_element else int(counts.reshape(-1)[0]) * n
    # before NumPy sizes the positions: a count that overflows int64 there writes past the array
    if per_element:
        check_storage_size((*input.shape[:d], total, *input.shape[d + 1:]), input.dtype.itemsize)
    else:  # PyTorch expands a new dimension of the count after ``dim``
        check_storage_size((*input.shape[:d + 1], int(counts.reshape(-1)[0]), *input.shape[d + 1:]), input.dtype.itemsize)
    if output_size is not None:
        if total != output_size:  # PyTorch's two wordings: a tensor of repeats, a single count
            raise RuntimeError("allocated size does not match required size" if isinstance(repeats, Tensor) and counts.ndim
                               else f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}")
    return index_select(input, d, _positions(np.repeat(np.arange(n), counts.reshape(-1) if counts.size != 1 else int(counts.reshape(-1)[0])), input.device))


# ---- triangles and products ----


def _triangle(input: Tensor, diagonal: int, lower: bool, name: str) -> Tensor:  # noqa: A002
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    rows, cols = input.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset <= diagonal if lower else offset >= diagonal
    mask = make_tensor(keep, dtype=dtypes.bool_, device=input.device)
    return where(mask, input, make_tensor(0, dtype=input.dtype, device=input.device))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The lower triangle of the last two dimensions (``j - i <= diagonal``); the rest zero."""
    return _triangle(input, diagonal, True, "tril")


def triu(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The upper triangle of the last two dimensions (``j - i >= diagonal``); the rest zero."""
    return _triangle(input, diagonal, False, "triu")


def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    r"""The outer product :math:`\mathrm{out}_{ij} = a_i b_j` of two vectors."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


ger = outer


# ---- masks ----

#: the C++ type names PyTorch's mask errors print for each dtype
_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "float64": "double", "float32": "float", "float16": "c10::Half", "uint8": "unsigned char",
                  "int16": "short int", "int8": "signed char", "bfloat16": "c10::BFloat16"}


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:  # noqa: A002
    """``value`` where ``mask`` holds (broadcast), else ``input``."""
    if not isinstance(mask, Tensor) or mask.dtype is not dtypes.bool_:
        found = _C_TYPE_NAMES.get(mask.dtype.name, mask.dtype.name) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {found}")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.dim()} dimension(s)."
            )
        fill = value.to(input.dtype)
    else:
        bounds = INTEGER_RANGES.get(input.dtype)
        if bounds is not None and not bounds[0] <= value <= bounds[1]:  # nan and inf included
            raise RuntimeError(f"value cannot be converted to type {bounds[2]} without overflow")
        fill = make_tensor(value, dtype=input.dtype, device=input.device)
    return where(mask, fill, input)  # out of place, input and mask broadcast together (unlike masked_fill_)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:  # noqa: A002
    """The elements of ``input`` where ``mask`` holds (both broadcast), as a vector."""
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    from ..tensor_data import shape_broadcast

    shape = shape_broadcast(tuple(input.shape), tuple(mask.shape))
    return input.expand(shape)[mask.expand(shape)] if shape else input.reshape(1)[mask.reshape(1)]


def take_along_dim(input: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:  # noqa: A002
    """``gather`` with ``indices`` broadcast against ``input`` in every dimension but ``dim``."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    d = normalize_dim(dim, input.dim())
    from ..tensor_data import shape_broadcast

    # broadcast in every dimension but ``dim``, where the two sizes may differ (PyTorch's rule)
    input_rest = tuple(1 if k == d else size for k, size in enumerate(input.shape))
    index_rest = tuple(1 if k == d else size for k, size in enumerate(indices.shape))
    common = list(shape_broadcast(input_rest, index_rest))
    input_shape, index_shape = list(common), list(common)
    input_shape[d], index_shape[d] = input.shape[d], indices.shape[d]
    return gather(input.expand(tuple(input_shape)), d, indices.expand(tuple(index_shape)))


# ---- positions of values (not differentiable) ----


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    """The positions of the non-zero elements: an ``(n, ndim)`` int64 tensor, or one vector per dimension."""
    values = _host(input)
    if as_tuple:
        columns = np.nonzero(values.reshape(1) if values.ndim == 0 else values)
        return tuple(_positions(c, input.device) for c in columns)
    if values.ndim == 0:
        return _positions(np.zeros((int(values != 0), 0)), input.device)
    return _positions(np.argwhere(values), input.device)


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    return nonzero(input)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None) -> Any:  # noqa: A002
    """The distinct values (sorted), with where each element went and how often each occurs if asked."""
    values = _host(input)
    axis = None if dim is None else normalize_dim(dim, input.dim())
    found = np.unique(values, return_inverse=True, return_counts=True, axis=axis)
    uniq, inverse, counts = found
    out = make_tensor(uniq, dtype=input.dtype, device=input.device)
    if axis is None:
        inverse = inverse.reshape(values.shape)
    result: list[Tensor] = [out]
    if return_inverse:
        result.append(_positions(inverse.reshape(-1) if axis is not None else inverse, input.device))
    if return_counts:
        result.append(_positions(counts, input.device))
    return result[0] if len(result) == 1 else tuple(result)


def where_or_nonzero(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """``torch.where``: with one argument the positions where ``condition`` holds, else the elementwise choice."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return where(condition, input, other)


# ---- the Tensor methods of these ops ----


class TensorMethods:
    """``t.chunk(...)``, ``t.flip(...)`` and the other methods of the ops above.

    Not a base class: its functions are attached to :class:`~minitorch.tensor.Tensor` by the one
    ``add_tensor_methods`` call below (tensor.py sits below this module and never imports it).
    """

    def chunk(self, chunks: int, dim: int = 0) -> tuple["Tensor", ...]:
        return chunk(self, chunks, dim)

    def split(self, split_size: Any, dim: int = 0) -> tuple["Tensor", ...]:
        return split(self, split_size, dim)

    def unbind(self, dim: int = 0) -> tuple["Tensor", ...]:
        return unbind(self, dim)

    def flip(self, *dims: Any) -> "Tensor":
        return flip(self, dims[0] if len(dims) == 1 else dims)

    def roll(self, shifts: Any, dims: Any = None) -> "Tensor":
        return roll(self, shifts, dims)

    def movedim(self, source: Any, destination: Any) -> "Tensor":
        return movedim(self, source, destination)

    moveaxis = movedim

    def repeat(self, *sizes: Any) -> "Tensor":
        return repeat(self, *sizes)

    def tile(self, *dims: Any) -> "Tensor":
        return tile(self, shape_from_args(dims))

    def repeat_interleave(self, repeats: Any, dim: Optional[int] = None, *, output_size: Optional[int] = None) -> "Tensor":
        return repeat_interleave(self, repeats, dim, output_size=output_size)

    def tril(self, diagonal: int = 0) -> "Tensor":
        return tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> "Tensor":
        return triu(self, diagonal)

    def outer(self, vec2: "Tensor") -> "Tensor":
        return outer(self, vec2)

    def masked_fill(self, mask: "Tensor", value: Any) -> "Tensor":
        return masked_fill(self, mask, value)

    def masked_select(self, mask: "Tensor") -> "Tensor":
        return masked_select(self, mask)

    def take_along_dim(self, indices: "Tensor", dim: Optional[int] = None) -> "Tensor":
        return take_along_dim(self, indices, dim)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        return nonzero(self, as_tuple=as_tuple)

    def argwhere(self) -> "Tensor":
        return nonzero(self)

    def unique(self, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None) -> Any:  # noqa: A002
        return unique(self, sorted, return_inverse, return_counts, dim)


add_tensor_methods({name: method for name, method in vars(TensorMethods).items() if not name.startswith("__")})
