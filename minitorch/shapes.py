"""Shape arguments as PyTorch accepts them: sizes given loose or as one sequence, ``-1`` to infer, negative dims.

The lowest layer: plain integers in, plain integers out, so tensors, creation functions and
ops all check shapes and dimensions with the same code and the same error messages.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .size import Size


def shape_from_args(shape: tuple[Any, ...]) -> tuple[int, ...]:
    """Accept ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = tuple(shape[0])
    for s in shape:  # the common case: plain ints (a loop: quicker than all() over a generator)
        if type(s) is not int:
            break
    else:
        return shape
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"shape entries must be ints, got {type(s).__name__} in {shape}")
    return tuple(int(s) for s in shape)


def infer_size(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """``shape`` with its one -1 filled in so that it holds ``numel`` elements, or PyTorch's error."""
    if math.prod(shape) == numel and (not shape or min(shape) >= 0):  # nothing to fill in or check
        return shape
    unknown = None
    for i, size in enumerate(shape):
        if size == -1:
            if unknown is not None:
                raise RuntimeError("only one dimension can be inferred")
            unknown = i
        elif size < 0:
            raise RuntimeError(f"invalid shape dimension {size} at index {i} of shape {list(shape)}")
    known = math.prod([s for s in shape if s != -1])
    if unknown is None:
        if known != numel:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return shape
    if known == 0:
        if numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified dimension "
                "size -1 can be any value and is ambiguous"
            )
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    if numel % known:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape[:unknown] + (numel // known,) + shape[unknown + 1 :]


def normalize_dim(dim: int, ndim: int) -> int:
    """``dim`` in ``[-ndim, ndim)`` as a non-negative index (0-d tensors accept 0 and -1)."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
    return dim % bound


INT64_MAX = 2 ** 63 - 1


def check_storage_size(sizes: tuple[int, ...], itemsize: int) -> None:
    """PyTorch's error for a tensor of ``sizes`` whose byte count does not fit in an int64
    (raised before any work: a loop over such a size would never end)."""
    count = math.prod(sizes)
    if count > INT64_MAX:
        raise RuntimeError("numel: integer multiplication overflow")
    if count * itemsize > INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}")
