"""Walking a strided layout row by row, each row's start found by an odometer: the copy kernel
for views read in short runs, and the helpers that :mod:`.cpu_index_kernels` walks with.

The elementwise kernels of :mod:`.cpu_kernels` find where each run starts by dividing its
number by every dimension's size (:func:`~.cpu_kernels.start_position`): one integer division
per dimension and operand, tens of cycles each. On a view read in runs of a few elements,
such as the windows of a strided convolution, ``(O, kh, kw, N, h, w)`` with runs of 8 read
every second element, the divisions cost many times the copy. Here only the first row of a
part is found by division; every next one by counting up the row's index like an odometer:

.. code-block:: text

    index[d] += 1; position += stride[d]          (the last of the outer dimensions first)
    if index[d] == shape[d]:                       (a wheel turned over: reset it, carry)
        index[d] = 0; position -= shape[d] * stride[d]; go on with d - 1

Most rows turn one wheel: two additions per operand.
"""

from __future__ import annotations

import numpy as np
import numba
from numba import njit, prange

from ..tensor_data import TensorData, expand_strides
from . import kernel_cache
from .coalesce import coalesce
from .cpu_kernels import KERNEL_OPTIONS, count, prange_only, serial_twin

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)


@njit(inline="always", **KERNEL_OPTIONS)
def first_row(row: int, shape: np.ndarray, index: np.ndarray, out_strides: np.ndarray,
              src_strides: np.ndarray) -> tuple[int, int]:
    """Set ``index`` (the outer dimensions, all but the last) to row ``row``'s and return the
    row's first position in ``out`` and in ``src``."""
    remaining = row
    out_pos = 0
    src_pos = 0
    for d in range(shape.size - 2, -1, -1):
        index[d] = remaining % shape[d]
        remaining //= shape[d]
        out_pos += index[d] * out_strides[d]
        src_pos += index[d] * src_strides[d]
    return out_pos, src_pos


@njit(inline="always", **KERNEL_OPTIONS)
def next_row(shape: np.ndarray, index: np.ndarray, out_pos: int, out_strides: np.ndarray, src_pos: int,
             src_strides: np.ndarray) -> tuple[int, int]:
    """Count ``index`` up by one row and move both positions with it (see the module docstring)."""
    d = shape.size - 2
    index[d] += 1
    out_pos += out_strides[d]
    src_pos += src_strides[d]
    while d > 0 and index[d] == shape[d]:  # (a loop with a ``break`` ran 5x slower, inlined)
        index[d] = 0
        out_pos -= shape[d] * out_strides[d]
        src_pos -= shape[d] * src_strides[d]
        d -= 1
        index[d] += 1
        out_pos += out_strides[d]
        src_pos += src_strides[d]
    return out_pos, src_pos


# Along a row the positions are unsigned: an element's position is never negative, and a
# negative step still lands right (unsigned sums wrap around, as the bits of a signed one
# would). With signed positions every read and write also tests for a negative index (NumPy's
# "from the end"): 0.55 against 0.36 ms for the 524K additions of a transposed convolution's fold.


@njit(inline="always", **KERNEL_OPTIONS)
def copy_rows(out: np.ndarray, out_strides: np.ndarray, src: np.ndarray, src_strides: np.ndarray,
              shape: np.ndarray, first: int, stop: int) -> None:
    """``out[i] = src[i]`` for the rows ``first <= row < stop`` (rows along the last dimension)."""
    last = shape.size - 1
    width = shape[last]
    out_step, src_step = np.uint64(out_strides[last]), np.uint64(src_strides[last])
    index = np.zeros(last, np.int64)
    out_pos, src_pos = first_row(first, shape, index, out_strides, src_strides)
    for _ in range(first, stop):
        o, s = np.uint64(out_pos), np.uint64(src_pos)
        for _ in range(width):
            out[o] = src[s]
            o += out_step
            s += src_step
        out_pos, src_pos = next_row(shape, index, out_pos, out_strides, src_pos, src_strides)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def copy_kernel(out: np.ndarray, out_strides: np.ndarray, src: np.ndarray, src_strides: np.ndarray,
                shape: np.ndarray, parts: int) -> None:
    """``out[i] = src[i]`` over ``shape``, its rows cut into ``parts`` parts of consecutive rows
    that threads share (each output element is written once, so parts never meet)."""
    rows = count(shape[:-1])
    for part in prange(parts):
        copy_rows(out, out_strides, src, src_strides, shape, np.int64(part) * rows // parts,
                  (np.int64(part) + 1) * rows // parts)


#: :func:`copy_kernel` without threads (see :func:`.cpu_kernels.serial_twin`)
copy_kernel_serial = serial_twin(copy_kernel, **KERNEL_OPTIONS)


# ---- the Python side: the order of the walk ----

#: parts per thread of a threaded copy: a few each, so a thread that finishes early takes another
PARTS_PER_THREAD = 4


def walk_order(shape: tuple[int, ...], out_strides: tuple[int, ...], src_strides: tuple[int, ...],
               outermost: int = -1) -> tuple[list[int], list[int], list[int]]:
    """The dimensions in the order to walk them: the one whose step moves furthest through both
    operands (the sum of its strides) outermost, the nearest innermost, and ``outermost`` (if
    not -1) first of all; then every mergeable pair of the others merged (:func:`.coalesce.coalesce`).
    At least two dimensions (a first one of size 1 added).

    Any order visits the same pairs of positions; this one reads and writes nearby memory in
    turn, as a row-major walk of a contiguous tensor does. Returns ``(shape, out_strides,
    src_strides)``."""
    rest = sorted((d for d in range(len(shape)) if d != outermost),
                  key=lambda d: abs(out_strides[d]) + abs(src_strides[d]), reverse=True)
    merged_shape, (merged_out, merged_src) = coalesce(
        [shape[d] for d in rest] or [1], [[out_strides[d] for d in rest] or [0], [src_strides[d] for d in rest] or [0]])
    if outermost >= 0:
        merged_shape, merged_out, merged_src = ([shape[outermost], *merged_shape], [out_strides[outermost], *merged_out],
                                                [src_strides[outermost], *merged_src])
    if len(merged_shape) < 2:  # the kernels walk rows: one dimension at least before the last
        merged_shape, merged_out, merged_src = [1, *merged_shape], [0, *merged_out], [0, *merged_src]
    return merged_shape, merged_out, merged_src


def parts_for(rows: int) -> int:
    """How many parts a threaded kernel cuts ``rows`` rows into."""
    return max(1, min(rows, PARTS_PER_THREAD * numba.get_num_threads()))


def disjoint_dim(shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """A dimension whose slices touch disjoint storage (the longest such), or -1.

    Slices along ``d`` are disjoint when one step along ``d`` is longer than the span
    that all the other dimensions cover together.
    """
    span = sum((n - 1) * abs(s) for n, s in zip(shape, strides))
    best = -1
    for d, (size, stride) in enumerate(zip(shape, strides)):
        if size >= 2 and abs(stride) > span - (size - 1) * abs(stride) and (best < 0 or size > shape[best]):
            best = d
    return best


#: walk layouts (:func:`walk_layout`), by the operands' layouts
_WALK_LAYOUTS: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray, bool]] = {}
#: forget them all past this many (a program that makes ever new shapes)
LAYOUT_CACHE_SIZE = 4096


def walk_layout(src: TensorData, out: TensorData,
                split_disjoint: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(shape, out_strides, src_strides, split)`` of a walk over ``out`` and ``src`` (broadcast to
    ``out``'s shape) in :func:`walk_order`, as the int64 arrays the kernels take; cached per layout.

    With ``split_disjoint`` (``out`` may be written from many places, as an accumulation's is), a
    dimension along which ``out``'s slices are disjoint (:func:`disjoint_dim`) comes first if
    there is one, and ``split`` says so: threads may then share that dimension, and only that one.
    """
    key = (out.shape, out.strides, src.shape, src.strides, split_disjoint)
    found = _WALK_LAYOUTS.get(key)
    if found is None:
        if len(_WALK_LAYOUTS) >= LAYOUT_CACHE_SIZE:
            _WALK_LAYOUTS.clear()
        shape, out_strides = out.shape or (1,), out.strides or (1,)
        src_strides = src.strides if src.shape == out.shape else expand_strides(src.shape, src.strides, out.shape)
        first = disjoint_dim(shape, out_strides) if split_disjoint else -1
        walk_shape, walk_out, walk_src = walk_order(shape, out_strides, src_strides or (0,), first)
        found = _WALK_LAYOUTS[key] = (*(np.array(v, np.int64) for v in (walk_shape, walk_out, walk_src)), first >= 0)
    return found


def copy(src: np.ndarray, out: np.ndarray, layout: tuple[np.ndarray, np.ndarray, np.ndarray, bool],
         threaded: bool) -> None:
    """``out[...] = src`` over ``layout`` (:func:`walk_layout`), ``src`` and ``out`` buffers of one dtype."""
    shape, out_strides, src_strides, _ = layout
    rows = int(np.prod(shape[:-1]))
    if threaded and rows > 1:
        copy_kernel(out, out_strides, src, src_strides, shape, parts_for(rows))
    else:
        copy_kernel_serial(out, out_strides, src, src_strides, shape, 1)
