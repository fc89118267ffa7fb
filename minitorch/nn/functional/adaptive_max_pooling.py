r"""Adaptive max pooling: the maximum over windows chosen so the output has a given size.

Along a dimension of :math:`n` inputs pooled to :math:`m` outputs, output :math:`i` takes the
maximum over input positions

.. math:: \Big\lfloor \frac{i\,n}{m} \Big\rfloor \le j < \Big\lceil \frac{(i+1)\,n}{m} \Big\rceil

so windows differ in length by at most one and may overlap. Ragged windows do not fit a
strided view, so the input's spatial dimensions are flattened, a :math:`-\infty` sentinel is
appended, and one gather reads every window, padded with the sentinel to the longest:
``(..., *output_size, window)``. The maximum over the last dimension is the value; the gather's
backward routes each gradient to the position that won (the first maximum, in row-major order).
"""

from __future__ import annotations

import itertools
import math
from typing import Optional, Sequence, Union

from ... import creation, dtypes
from ...ops.indexing import Gather, index_select
from ...ops.windows import ConstantPad
from ...shapes import check_storage_size
from ...tensor import Tensor
from ._utils import shape_list

OutputSize = Union[int, None, Sequence[Optional[int]]]


def window_bounds(size: int, out_size: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each of ``out_size`` windows over ``size`` positions (see the module docstring)."""
    return [((i * size) // out_size, -(-((i + 1) * size) // out_size)) for i in range(out_size)]


def _window_table(sizes: tuple[int, ...], outs: tuple[int, ...]) -> tuple[list[list[int]], int]:
    """Per output position, the flat input positions of its window, padded to one length with
    ``prod(sizes)`` (the sentinel's position); and that length."""
    bounds = [window_bounds(size, out) for size, out in zip(sizes, outs)]
    longest = [max((stop - start for start, stop in b), default=1) for b in bounds]
    sentinel = math.prod(sizes)
    table = []
    for windows in itertools.product(*bounds):
        row = []
        for offsets in itertools.product(*(range(k) for k in longest)):
            inside = all(start + o < stop for (start, stop), o in zip(windows, offsets))
            flat = 0
            for (start, _), o, size in zip(windows, offsets, sizes):
                flat = flat * size + start + o
            row.append(flat if inside else sentinel)
        table.append(row)
    return table, math.prod(longest)


def _resolve_sizes(name: str, n: int, input: Tensor, output_size: OutputSize) -> tuple[int, ...]:  # noqa: A002
    """``output_size`` as ``n`` ints (``None`` keeps the input's size), with PyTorch's checks."""
    scalar = isinstance(output_size, int) or output_size is None
    wanted = (output_size,) * n if scalar else tuple(output_size)
    if n == 2 and not scalar and input.dim() <= len(wanted):  # PyTorch's Python-side check comes first
        raise ValueError(f"Input dimension should be at least {len(wanted) + 1}")
    if input.dim() not in (n + 1, n + 2):
        if n == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {name})")
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got: {shape_list(input.shape)}")
    if not scalar:
        if n == 1 and len(wanted) != 1:
            raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(wanted)})")
        if len(wanted) != n:
            raise RuntimeError(f"{name}: internal error: output_size.size() must be {n}")
    sizes = tuple(input.shape[-n:])
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for \'{dtypes.scalar_type_name(input.dtype)}\'')
    outs = tuple(size if w is None else int(w) for size, w in zip(sizes, wanted))
    for d in range(1 if input.dim() == n + 2 else 0, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shape_list(input.shape)} with dimension {d} being empty")
    if any(o < 0 for o in outs):
        lead = tuple(input.shape[:-n]) + (1,) * (2 - n)
        negative = next(o for o in outs if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {shape_list(lead + outs)}")
    check_storage_size(tuple(input.shape[:-n]) + (1,) * (2 - n) + outs, input.dtype.itemsize)
    return outs


def _adaptive_max_pool(name: str, n: int, input: Tensor, output_size: OutputSize,  # noqa: A002
                       return_indices: bool):
    outs = _resolve_sizes(name, n, input, output_size)
    sizes = tuple(input.shape[-n:])
    lead = tuple(input.shape[:-n])
    table, window = _window_table(sizes, outs)
    where = creation.tensor(table or [[0] * window], dtype=dtypes.int64, device=input.device)[: len(table)]
    flat = ConstantPad.apply(input.reshape(*lead, math.prod(sizes)), ((0, 0),) * len(lead) + ((0, 1),), -math.inf)
    gathered = index_select(flat, -1, where.reshape(-1)).view(*lead, *outs, window)
    values, positions = gathered.max(-1)
    if not return_indices:
        return values
    spread = where.view(*outs, window).expand(*lead, *outs, window)
    return values, Gather.apply(spread, len(lead) + n, positions.unsqueeze(-1)).squeeze(-1)


def adaptive_max_pool1d(input: Tensor, output_size: OutputSize, return_indices: bool = False):  # noqa: A002
    """Max pooling of ``(N, C, L)`` or ``(C, L)`` input to exactly ``output_size`` positions."""
    return _adaptive_max_pool("adaptive_max_pool1d", 1, input, output_size, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: OutputSize, return_indices: bool = False):  # noqa: A002
    """Max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` input to exactly ``output_size`` (``None``: keep)."""
    return _adaptive_max_pool("adaptive_max_pool2d", 2, input, output_size, return_indices)
