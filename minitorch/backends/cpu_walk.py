"""Walking a strided layout row by row, each row's start counted on from the one before: the
cpu backend's elementwise kernels for views (a permute, a crop, a convolution's windows), and
the helpers that :mod:`.cpu_index_kernels` accumulates with.

The students' elementwise kernels (:mod:`.cpu_kernels`, task 3.1) cut the work into runs along
the last dimension and find where each run starts by dividing its number by every dimension's
size (:func:`~.cpu_kernels.start_position`): one integer division per dimension and operand,
tens of cycles each. On a contiguous tensor there is one run per 16K elements; on a view read
in runs of a few elements, such as the windows of a strided convolution, ``(O, kh, kw, N, h, w)``
with runs of 8 read every second element, the divisions cost many times the work. Here only
the first row of each part of the work is found by division; every next one by counting up the
row's index like an odometer:

.. code-block:: text

    index[d] += 1; position += stride[d]          (the last of the outer dimensions first)
    if index[d] == shape[d]:                       (a wheel turned over: reset it, carry)
        index[d] = 0; position -= shape[d] * stride[d]; go on with d - 1

Most rows turn one wheel: two additions per operand. Each row is the students' run where all
its steps are 1 (:func:`~.cpu_kernels.map_run`, :func:`~.cpu_kernels.zip_run`, which vectorise),
else a loop of the op's scalar body. The dimensions are walked in the order that reads and writes
nearby memory in turn (:func:`walk_order`), whatever the views' own order.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numba
import numpy as np
from numba import njit, prange
from numba.core.dispatcher import Dispatcher

from ..tensor_data import TensorData, expand_strides
from . import kernel_cache, opcodes
from .coalesce import coalesce
from .cpu_kernels import KERNEL_OPTIONS, binary_into, count, entry_point, map_run, prange_only, unary_into, zip_run

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)


# ---- finding the rows: by division once, then by counting ----


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


@njit(inline="always", **KERNEL_OPTIONS)
def first_positions(row: int, shape: np.ndarray, index: np.ndarray, strides: np.ndarray, positions: np.ndarray) -> None:
    """:func:`first_row` for any number of operands: ``strides`` one row per operand, each
    operand's position into ``positions``. (Positions in an array cost more than two locals: a
    copy walked this way took 1.6x as long, so the two-operand walks use :func:`first_row`.)"""
    positions[:] = 0
    remaining = row
    for d in range(shape.size - 2, -1, -1):
        index[d] = remaining % shape[d]
        remaining //= shape[d]
        for operand in range(strides.shape[0]):
            positions[operand] += index[d] * strides[operand, d]


@njit(inline="always", **KERNEL_OPTIONS)
def next_positions(shape: np.ndarray, index: np.ndarray, strides: np.ndarray, positions: np.ndarray) -> None:
    """:func:`next_row` for any number of operands."""
    d = shape.size - 2
    index[d] += 1
    for operand in range(strides.shape[0]):
        positions[operand] += strides[operand, d]
    while d > 0 and index[d] == shape[d]:
        index[d] = 0
        for operand in range(strides.shape[0]):
            positions[operand] -= shape[d] * strides[operand, d]
        d -= 1
        index[d] += 1
        for operand in range(strides.shape[0]):
            positions[operand] += strides[operand, d]


# ---- the kernels: parts of consecutive rows, shared among threads ----
#
# Each output element is written once, so parts never meet. Along a strided row the positions
# are unsigned: an element's position is never negative, and with signed positions every read
# and write also tests for a negative index (NumPy's "from the end"): 0.55 against 0.36 ms for
# the 524K additions of a transposed convolution's fold.


@njit(inline="always", **KERNEL_OPTIONS)
def map_rows(op: int, out: np.ndarray, a: np.ndarray, shape: np.ndarray, strides: np.ndarray,
             first: int, stop: int) -> None:
    """``out[i] = op(a[i])`` for the rows ``first <= row < stop``; ``strides`` rows: out, a."""
    last = shape.size - 1
    width = shape[last]
    out_strides, a_strides = strides[0], strides[1]
    index = np.zeros(last, np.int64)
    out_pos, a_pos = first_row(first, shape, index, out_strides, a_strides)
    if out_strides[last] == 1 and a_strides[last] == 1:
        for _ in range(first, stop):
            map_run(op, out, out_pos, 1, a, a_pos, 1, width)
            out_pos, a_pos = next_row(shape, index, out_pos, out_strides, a_pos, a_strides)
        return
    out_step, a_step = np.uint64(out_strides[last]), np.uint64(a_strides[last])
    for _ in range(first, stop):
        o, i = np.uint64(out_pos), np.uint64(a_pos)
        for _ in range(width):
            unary_into(op, a[i], out, o)
            o += out_step
            i += a_step
        out_pos, a_pos = next_row(shape, index, out_pos, out_strides, a_pos, a_strides)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def walk_map_kernel(op: int, out: np.ndarray, a: np.ndarray, shape: np.ndarray, strides: np.ndarray,
                    parts: int) -> None:
    """``out[i] = op(a[i])`` over ``shape`` (a layout of :func:`walk_layout`), its rows cut into ``parts``."""
    rows = count(shape[:-1])
    for part in prange(parts):
        map_rows(op, out, a, shape, strides, np.int64(part) * rows // parts, (np.int64(part) + 1) * rows // parts)


@njit(inline="always", **KERNEL_OPTIONS)
def zip_rows(op: int, out: np.ndarray, a: np.ndarray, b: np.ndarray, shape: np.ndarray, strides: np.ndarray,
             first: int, stop: int) -> None:
    """``out[i] = op(a[i], b[i])`` for the rows ``first <= row < stop``; ``strides`` rows: out, a, b."""
    last = shape.size - 1
    width = shape[last]
    index = np.zeros(last, np.int64)
    positions = np.zeros(3, np.int64)
    first_positions(first, shape, index, strides, positions)
    if strides[0, last] == 1 and 0 <= strides[1, last] <= 1 and 0 <= strides[2, last] <= 1:  # zip_run's SIMD cases
        for _ in range(first, stop):
            zip_run(op, out, positions[0], 1, a, positions[1], strides[1, last], b, positions[2], strides[2, last], width)
            next_positions(shape, index, strides, positions)
        return
    out_step, a_step, b_step = np.uint64(strides[0, last]), np.uint64(strides[1, last]), np.uint64(strides[2, last])
    for _ in range(first, stop):
        o, i, j = np.uint64(positions[0]), np.uint64(positions[1]), np.uint64(positions[2])
        for _ in range(width):
            binary_into(op, a[i], b[j], out, o)
            o += out_step
            i += a_step
            j += b_step
        next_positions(shape, index, strides, positions)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def walk_zip_kernel(op: int, out: np.ndarray, a: np.ndarray, b: np.ndarray, shape: np.ndarray, strides: np.ndarray,
                    parts: int) -> None:
    """``out[i] = op(a[i], b[i])`` over ``shape`` (a layout of :func:`walk_layout`), its rows cut into ``parts``."""
    rows = count(shape[:-1])
    for part in prange(parts):
        zip_rows(op, out, a, b, shape, strides, np.int64(part) * rows // parts, (np.int64(part) + 1) * rows // parts)


# ---- entry points: one compiled kernel per op, as :func:`.cpu_kernels.map_entry` makes them ----


@functools.lru_cache(maxsize=None)
def map_entry(op: int) -> Dispatcher:
    """:func:`walk_map_kernel` for op code ``op``: ``(out, a, shape, strides, parts)``."""
    def kernel(out, a, shape, strides, parts):  # type: ignore[no-untyped-def]
        walk_map_kernel(op, out, a, shape, strides, parts)
    return entry_point(kernel, f"walk_map_{opcodes.UNARY[op]}")


@functools.lru_cache(maxsize=None)
def zip_entry(op: int) -> Dispatcher:
    """:func:`walk_zip_kernel` for op code ``op``: ``(out, a, b, shape, strides, parts)``."""
    def kernel(out, a, b, shape, strides, parts):  # type: ignore[no-untyped-def]
        walk_zip_kernel(op, out, a, b, shape, strides, parts)
    return entry_point(kernel, f"walk_zip_{opcodes.BINARY[op]}")


# ---- the Python side: the order of the walk ----

#: parts per thread of a threaded walk: a few each, so a thread that finishes early takes another
PARTS_PER_THREAD = 4


def walk_order(shape: Sequence[int], strides: Sequence[Sequence[int]],
               outermost: int = -1) -> tuple[list[int], list[list[int]]]:
    """The dimensions in the order to walk them, for operands with ``strides`` (one sequence per
    operand, ``out``'s first): the one whose step moves furthest through all operands (the sum of
    its strides) outermost, the nearest innermost, and ``outermost`` (if not -1) first of all; then
    every mergeable pair of the others merged (:func:`.coalesce.coalesce`). At least two
    dimensions (a first one of size 1 added). Returns ``(shape, strides)``.

    Any order visits the same tuples of positions; this one reads and writes nearby memory in
    turn, as a row-major walk of a contiguous tensor does."""
    rest = sorted((d for d in range(len(shape)) if d != outermost),
                  key=lambda d: sum(abs(operand[d]) for operand in strides), reverse=True)
    merged_shape, merged = coalesce([shape[d] for d in rest] or [1],
                                    [[operand[d] for d in rest] or [0] for operand in strides])
    if outermost >= 0:
        merged_shape = [shape[outermost], *merged_shape]
        merged = [[operand[outermost], *walk] for operand, walk in zip(strides, merged)]
    if len(merged_shape) < 2:  # the kernels walk rows: one dimension at least before the last
        merged_shape, merged = [1, *merged_shape], [[0, *walk] for walk in merged]
    return merged_shape, merged


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
_WALK_LAYOUTS: dict[tuple, tuple[np.ndarray, np.ndarray, bool]] = {}
#: forget them all past this many (a program that makes ever new shapes)
LAYOUT_CACHE_SIZE = 4096


def walk_layout(out: TensorData, *operands: TensorData,
                split_disjoint: bool = False) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(shape, strides, split)`` of a walk over ``out`` and ``operands`` (broadcast to ``out``'s
    shape) in :func:`walk_order`: the int64 shape and an int64 array of strides, one row per
    operand, ``out``'s first, as the kernels take them; cached per layout.

    With ``split_disjoint`` (``out`` may be written from many places, as an accumulation's is), a
    dimension along which ``out``'s slices are disjoint (:func:`disjoint_dim`) comes first if
    there is one, and ``split`` says so: threads may then share that dimension, and only that one.
    """
    key = (out.shape, out.strides, *[(a.shape, a.strides) for a in operands], split_disjoint)
    found = _WALK_LAYOUTS.get(key)
    if found is None:
        if len(_WALK_LAYOUTS) >= LAYOUT_CACHE_SIZE:
            _WALK_LAYOUTS.clear()
        shape = out.shape or (1,)
        strides = [out.strides or (1,)] + [
            (a.strides if a.shape == out.shape else expand_strides(a.shape, a.strides, out.shape)) or (0,)
            for a in operands]
        first = disjoint_dim(shape, strides[0]) if split_disjoint else -1
        walk_shape, walk_strides = walk_order(shape, strides, first)
        found = _WALK_LAYOUTS[key] = (np.array(walk_shape, np.int64), np.array(walk_strides, np.int64), first >= 0)
    return found
