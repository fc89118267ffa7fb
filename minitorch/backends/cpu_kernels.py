"""Numba kernels of the CPU backend.

Every function here is a module-level ``@njit(cache=True)`` function, so a fresh process
loads the compiled code from Numba's on-disk cache instead of compiling it again. The
scalar operation is picked by an integer *op code* (the constants below), never by passing
a function: a kernel that takes or closes over a function is never found in the cache.

How the pieces fit (``zip`` as the example; ``map`` is the same with one operand):

* :func:`binary_into` is the table of ops: ``out[pos] = op(x, y)`` by an ``if``/``elif``
  chain on the op code;
* :func:`zip_run` applies one op along a *segment*: ``n`` elements, each operand walked
  with its own step from its own start; unit steps (and step 0, a broadcast number) get
  loops over slices, which LLVM turns into SIMD code;
* :func:`zip_segment` tests the op code once and calls :func:`zip_run` with it as a
  constant, so each op gets its own tight loop. (Testing it inside the loop would leave
  every loop scalar: LLVM does not hoist a 14-way test out of a loop by itself.);
* :func:`zip_kernel` cuts the tensor into tasks, each one segment (the trailing
  dimensions merged as far as the strides allow, long segments split into chunks), and
  :func:`zip_task` runs one of them.

The kernels loop over their tasks with ``prange`` (threads share them) only when there is
enough work: waking the thread pool costs microseconds on an idle machine and far more on a
busy one, so a small tensor runs on the calling thread (``PARALLEL_MIN_WORK``). The work of
a task lives in a function of its own, called from both loops, and apart from ``prange``
the kernels use no parallel features: no array expression may start threads unasked.

Conventions:

* arrays are the views' ``buffer`` (1-D, starting at the view's first element), so a
  position is ``sum(index[d] * strides[d])`` with no offset;
* shapes and strides are int64 arrays (one Numba type whatever the rank, at least one
  dimension), an operand's strides already expanded to ``out``'s shape (stride 0 along
  broadcast dimensions);
* elementwise ops store their result straight into ``out``, so Numba casts it to
  ``out``'s dtype (``True``/``False`` into bool, a float into an int truncates as in NumPy)
  and an int64 never goes through a float64 on its way;
* loops that should vectorise index a slice from 0 (``part[j]``, not ``a[start + j]``):
  Numba wraps negative indices around, and only an index known to be >= 0 lets LLVM read
  consecutive elements.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# The op codes are literals (not computed from ``base``'s tuples): compiled kernels are
# cached on disk with these values baked in, so they must only change with this file.
COPY, NEG, EXP, LOG, SQRT, ABS, SIGMOID, TANH, RELU, SIGN, LOGICAL_NOT = range(11)
ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, LT, LE, GT, GE, EQ, NE, MASKED = range(14)
SUM, PROD, MAX, MIN = range(4)
ARGMAX, ARGMIN = range(2)

UNARY_CODES: dict[str, int] = {
    "copy": COPY, "neg": NEG, "exp": EXP, "log": LOG, "sqrt": SQRT, "abs": ABS,
    "sigmoid": SIGMOID, "tanh": TANH, "relu": RELU, "sign": SIGN, "logical_not": LOGICAL_NOT,
}
BINARY_CODES: dict[str, int] = {
    "add": ADD, "sub": SUB, "mul": MUL, "div": DIV, "pow": POW, "maximum": MAXIMUM,
    "minimum": MINIMUM, "lt": LT, "le": LE, "gt": GT, "ge": GE, "eq": EQ, "ne": NE, "masked": MASKED,
}
REDUCE_CODES: dict[str, int] = {"sum": SUM, "prod": PROD, "max": MAX, "min": MIN}
ARG_REDUCE_CODES: dict[str, int] = {"argmax": ARGMAX, "argmin": ARGMIN}

#: below this many elements (multiply-adds for matmul) a kernel runs on the calling thread
PARALLEL_MIN_WORK = 1 << 16
#: a segment longer than this is split into chunks of this many elements, one task each
CHUNK = 1 << 14
#: a reduction along a dimension that is not the innermost one sweeps the reduced
#: dimension once per chunk of this many neighbouring output cells: their float64
#: accumulators (32 KiB) stay in L1 while long contiguous stretches stream in (measured on a
#: 4096 x 4096 sum over dim 0: 1024 -> 13.6 ms, 2048 -> 7.1 ms, 4096 -> 4.6 ms)
REDUCE_BLOCK = 4096
#: matmul tiles: rows of ``out`` per parallel task, then the ``k`` x ``m`` block of ``b``
#: that all those rows reuse while it sits in L2 (128 x 512 float32 = 256 KiB)
MATMUL_BLOCK_N = 32
MATMUL_BLOCK_K = 128
MATMUL_BLOCK_M = 512

# ``error_model="numpy"``: IEEE results (inf, nan) for a zero divisor, no ZeroDivisionError
KERNEL_OPTIONS = {"cache": True, "error_model": "numpy"}
# sums may be reordered (split over SIMD lanes); NaN and inf keep their meaning
REDUCE_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"reassoc"}}
# ``a * b + c`` may become one fused multiply-add
MATMUL_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"contract"}}


def prange_only() -> dict[str, bool]:
    """``parallel=`` options with ``prange`` as the only parallel feature.

    A fresh dict for each kernel: Numba empties the one it is given.
    """
    return {
        "prange": True, "comprehension": False, "reduction": False, "inplace_binop": False,
        "setitem": False, "numpy": False, "stencil": False, "fusion": False,
    }


# ---- the ops: ``out[pos] = op(...)``; LLVM inlines them, folding the chain for a constant op ----


@njit(**KERNEL_OPTIONS)
def unary_into(op: int, x, out: np.ndarray, pos: int) -> None:
    """``out[pos] = op(x)`` for a unary op code."""
    # BEGIN SOLUTION 3.1
    if op == COPY:
        out[pos] = x
    elif op == NEG:
        out[pos] = -x
    elif op == EXP:
        out[pos] = math.exp(x)
    elif op == LOG:
        out[pos] = math.log(x)
    elif op == SQRT:
        out[pos] = math.sqrt(x)
    elif op == ABS:
        out[pos] = abs(x)
    elif op == SIGMOID:
        # the form that cannot overflow on either side
        if x >= 0:
            out[pos] = 1.0 / (1.0 + math.exp(-x))
        else:
            z = math.exp(x)
            out[pos] = z / (1.0 + z)
    elif op == TANH:
        out[pos] = math.tanh(x)
    elif op == RELU:
        if x > 0 or x != x:
            out[pos] = x
        else:
            out[pos] = 0
    elif op == SIGN:
        if x > 0:
            out[pos] = 1
        elif x < 0:
            out[pos] = -1
        else:
            out[pos] = 0
    else:  # LOGICAL_NOT
        out[pos] = x == 0
    # END SOLUTION


@njit(**KERNEL_OPTIONS)
def binary_into(op: int, x, y, out: np.ndarray, pos: int) -> None:
    """``out[pos] = op(x, y)`` for a binary op code."""
    # BEGIN SOLUTION 3.1
    if op == ADD:
        out[pos] = x + y
    elif op == SUB:
        out[pos] = x - y
    elif op == MUL:
        out[pos] = x * y
    elif op == DIV:
        out[pos] = x / y
    elif op == POW:
        out[pos] = x**y
    elif op == MAXIMUM:
        out[pos] = x if (x > y or x != x) else y
    elif op == MINIMUM:
        out[pos] = x if (x < y or x != x) else y
    elif op == LT:
        out[pos] = x < y
    elif op == LE:
        out[pos] = x <= y
    elif op == GT:
        out[pos] = x > y
    elif op == GE:
        out[pos] = x >= y
    elif op == EQ:
        out[pos] = x == y
    elif op == NE:
        out[pos] = x != y
    else:  # MASKED: a selection, never a product, so inf/nan where y is 0 stay out
        if y != 0:
            out[pos] = x
        else:
            out[pos] = 0
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
def reduce_step(op: int, acc, x):
    """One step of a reduction: ``acc`` combined with the next value ``x``."""
    # BEGIN SOLUTION 3.2
    if op == SUM:
        return acc + x
    elif op == PROD:
        return acc * x
    elif op == MAX:
        return acc if (acc > x or acc != acc) else x
    else:  # MIN
        return acc if (acc < x or acc != acc) else x
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
def is_better(op: int, x, best) -> bool:
    """Whether ``x`` strictly beats ``best`` for argmax/argmin (a NaN beats any number)."""
    # BEGIN SOLUTION 3.2
    if op == ARGMAX:
        return x > best or (x != x and best == best)
    else:  # ARGMIN
        return x < best or (x != x and best == best)
    # END SOLUTION


# ---- segments: one op along n elements, each operand with its own start and step ----


@njit(inline="always", **KERNEL_OPTIONS)
def map_run(
    op: int, out: np.ndarray, out_pos: int, out_step: int, a: np.ndarray, a_pos: int, a_step: int, n: int
) -> None:
    """``out[out_pos + j * out_step] = op(a[a_pos + j * a_step])`` for ``j < n``."""
    if out_step == 1 and a_step == 1:
        out_part, a_part = out[out_pos : out_pos + n], a[a_pos : a_pos + n]
        for j in range(n):
            unary_into(op, a_part[j], out_part, j)
    else:
        for j in range(n):
            unary_into(op, a[a_pos + j * a_step], out, out_pos + j * out_step)


@njit(inline="always", **KERNEL_OPTIONS)
def zip_run(
    op: int,
    out: np.ndarray,
    out_pos: int,
    out_step: int,
    a: np.ndarray,
    a_pos: int,
    a_step: int,
    b: np.ndarray,
    b_pos: int,
    b_step: int,
    n: int,
) -> None:
    """``out[out_pos + j * out_step] = op(a[a_pos + j * a_step], b[b_pos + j * b_step])`` for ``j < n``."""
    if out_step == 1 and a_step == 1 and b_step == 1:
        out_part, a_part, b_part = out[out_pos : out_pos + n], a[a_pos : a_pos + n], b[b_pos : b_pos + n]
        for j in range(n):
            binary_into(op, a_part[j], b_part[j], out_part, j)
    elif out_step == 1 and a_step == 1 and b_step == 0:  # e.g. ``x * 2``
        out_part, a_part, y = out[out_pos : out_pos + n], a[a_pos : a_pos + n], b[b_pos]
        for j in range(n):
            binary_into(op, a_part[j], y, out_part, j)
    elif out_step == 1 and a_step == 0 and b_step == 1:  # e.g. ``2 - x``
        out_part, x, b_part = out[out_pos : out_pos + n], a[a_pos], b[b_pos : b_pos + n]
        for j in range(n):
            binary_into(op, x, b_part[j], out_part, j)
    else:
        for j in range(n):
            binary_into(op, a[a_pos + j * a_step], b[b_pos + j * b_step], out, out_pos + j * out_step)


@njit(**KERNEL_OPTIONS)
def map_segment(
    op: int, out: np.ndarray, out_pos: int, out_step: int, a: np.ndarray, a_pos: int, a_step: int, n: int
) -> None:
    """:func:`map_run` with the op code tested once, outside the loops."""
    if op == COPY:
        map_run(COPY, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == NEG:
        map_run(NEG, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == EXP:
        map_run(EXP, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == LOG:
        map_run(LOG, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == SQRT:
        map_run(SQRT, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == ABS:
        map_run(ABS, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == SIGMOID:
        map_run(SIGMOID, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == TANH:
        map_run(TANH, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == RELU:
        map_run(RELU, out, out_pos, out_step, a, a_pos, a_step, n)
    elif op == SIGN:
        map_run(SIGN, out, out_pos, out_step, a, a_pos, a_step, n)
    else:
        map_run(LOGICAL_NOT, out, out_pos, out_step, a, a_pos, a_step, n)


@njit(**KERNEL_OPTIONS)
def zip_segment(
    op: int,
    out: np.ndarray,
    out_pos: int,
    out_step: int,
    a: np.ndarray,
    a_pos: int,
    a_step: int,
    b: np.ndarray,
    b_pos: int,
    b_step: int,
    n: int,
) -> None:
    """:func:`zip_run` with the op code tested once, outside the loops."""
    if op == ADD:
        zip_run(ADD, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == SUB:
        zip_run(SUB, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == MUL:
        zip_run(MUL, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == DIV:
        zip_run(DIV, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == POW:
        zip_run(POW, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == MAXIMUM:
        zip_run(MAXIMUM, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == MINIMUM:
        zip_run(MINIMUM, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == LT:
        zip_run(LT, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == LE:
        zip_run(LE, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == GT:
        zip_run(GT, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == GE:
        zip_run(GE, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == EQ:
        zip_run(EQ, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    elif op == NE:
        zip_run(NE, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
    else:
        zip_run(MASKED, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)


@njit(inline="always", **REDUCE_OPTIONS)
def reduce_run(op: int, acc, run: np.ndarray):
    """``acc`` combined in turn with each element of the contiguous ``run``."""
    for r in range(run.size):
        acc = reduce_step(op, acc, run[r])
    return acc


@njit(inline="always", **REDUCE_OPTIONS)
def reduce_rows(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """``acc[j] = op(acc[j], a[start + r * row_step + j])`` for each row ``r`` in turn."""
    for r in range(rows):
        row = a[start + r * row_step : start + r * row_step + acc.size]
        for j in range(acc.size):
            acc[j] = reduce_step(op, acc[j], row[j])


@njit(**REDUCE_OPTIONS)
def reduce_segment(op: int, acc, run: np.ndarray):
    """:func:`reduce_run` with the op code tested once, outside the loop."""
    if op == SUM:
        return reduce_run(SUM, acc, run)
    elif op == PROD:
        return reduce_run(PROD, acc, run)
    elif op == MAX:
        return reduce_run(MAX, acc, run)
    else:
        return reduce_run(MIN, acc, run)


@njit(**REDUCE_OPTIONS)
def reduce_rows_segment(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """:func:`reduce_rows` with the op code tested once, outside the loops."""
    if op == SUM:
        reduce_rows(SUM, acc, a, start, row_step, rows)
    elif op == PROD:
        reduce_rows(PROD, acc, a, start, row_step, rows)
    elif op == MAX:
        reduce_rows(MAX, acc, a, start, row_step, rows)
    else:
        reduce_rows(MIN, acc, a, start, row_step, rows)


# ---- index helpers ----


@njit(**KERNEL_OPTIONS)
def count(shape: np.ndarray, skip: int = -1) -> int:
    """Number of elements of ``shape``, leaving out dimension ``skip`` if given."""
    size = 1
    for d in range(shape.size):
        if d != skip:
            size *= shape[d]
    return size


@njit(**KERNEL_OPTIONS)
def start_position(row: int, shape: np.ndarray, strides: np.ndarray, inner: int) -> int:
    """Position of the first element of row ``row``, rows counting the dims before ``inner``."""
    # BEGIN SOLUTION 3.1
    remaining = row
    position = 0
    for d in range(inner - 1, -1, -1):
        position += (remaining % shape[d]) * strides[d]
        remaining //= shape[d]
    return position
    # END SOLUTION


@njit(**KERNEL_OPTIONS)
def merged_inner(shape: np.ndarray, out_strides: np.ndarray, a_strides: np.ndarray, b_strides: np.ndarray) -> int:
    """The first of the trailing dimensions that every operand walks with one constant step.

    Dimension ``d`` joins the trailing block when, for each operand, one step along it is
    exactly the whole block (``strides[d] == strides[-1] * block_size``): a contiguous
    tensor is then a single segment, and a row broadcast over a matrix is one per row.
    """
    last = shape.size - 1
    inner = last
    block = shape[last]
    while inner > 0:
        d = inner - 1
        if shape[d] != 1 and (
            out_strides[d] != out_strides[last] * block
            or a_strides[d] != a_strides[last] * block
            or b_strides[d] != b_strides[last] * block
        ):
            break
        block *= shape[d]
        inner = d
    return inner


# ---- kernels: the tasks, and the loops over them (``prange`` when there is enough work) ----
#
# A ``prange`` index is an unsigned integer; Numba turns unsigned mixed with signed into
# float64, so it is passed on as ``np.int64(task)`` (one compiled task function, not two).


@njit(**KERNEL_OPTIONS)
def map_task(
    task: int, chunks: int, width: int, inner: int,
    op: int, out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray, a: np.ndarray, a_strides: np.ndarray,
) -> None:
    """Run segment ``task``: chunk ``task % chunks`` of row ``task // chunks`` (rows of ``width``)."""
    # BEGIN SOLUTION 3.1
    last = shape.size - 1
    row = task // chunks
    j = (task % chunks) * CHUNK
    out_pos = start_position(row, shape, out_strides, inner) + j * out_strides[last]
    a_pos = start_position(row, shape, a_strides, inner) + j * a_strides[last]
    map_segment(op, out, out_pos, out_strides[last], a, a_pos, a_strides[last], min(CHUNK, width - j))
    # END SOLUTION


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def map_kernel(
    op: int, out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray, a: np.ndarray, a_strides: np.ndarray
) -> None:
    """``out[i] = op(a[i])`` for every index ``i`` of ``shape``."""
    # BEGIN SOLUTION 3.1
    inner = merged_inner(shape, out_strides, a_strides, a_strides)
    width = count(shape[inner:])
    chunks = (width + CHUNK - 1) // CHUNK
    tasks = count(shape[:inner]) * chunks
    if count(shape) < PARALLEL_MIN_WORK:
        for task in range(tasks):
            map_task(task, chunks, width, inner, op, out, shape, out_strides, a, a_strides)
    else:
        for task in prange(tasks):
            map_task(np.int64(task), chunks, width, inner, op, out, shape, out_strides, a, a_strides)
    # END SOLUTION


@njit(**KERNEL_OPTIONS)
def zip_task(
    task: int, chunks: int, width: int, inner: int,
    op: int, out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray,
) -> None:
    """Run segment ``task``: chunk ``task % chunks`` of row ``task // chunks`` (rows of ``width``)."""
    # BEGIN SOLUTION 3.1
    last = shape.size - 1
    row = task // chunks
    j = (task % chunks) * CHUNK
    out_pos = start_position(row, shape, out_strides, inner) + j * out_strides[last]
    a_pos = start_position(row, shape, a_strides, inner) + j * a_strides[last]
    b_pos = start_position(row, shape, b_strides, inner) + j * b_strides[last]
    zip_segment(
        op, out, out_pos, out_strides[last], a, a_pos, a_strides[last], b, b_pos, b_strides[last], min(CHUNK, width - j)
    )
    # END SOLUTION


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def zip_kernel(
    op: int,
    out: np.ndarray,
    shape: np.ndarray,
    out_strides: np.ndarray,
    a: np.ndarray,
    a_strides: np.ndarray,
    b: np.ndarray,
    b_strides: np.ndarray,
) -> None:
    """``out[i] = op(a[i], b[i])`` for every index ``i`` of ``shape``."""
    # BEGIN SOLUTION 3.1
    inner = merged_inner(shape, out_strides, a_strides, b_strides)
    width = count(shape[inner:])
    chunks = (width + CHUNK - 1) // CHUNK
    tasks = count(shape[:inner]) * chunks
    if count(shape) < PARALLEL_MIN_WORK:
        for task in range(tasks):
            zip_task(task, chunks, width, inner, op, out, shape, out_strides, a, a_strides, b, b_strides)
    else:
        for task in prange(tasks):
            zip_task(np.int64(task), chunks, width, inner, op, out, shape, out_strides, a, a_strides, b, b_strides)
    # END SOLUTION


@njit(**REDUCE_OPTIONS)
def reduce_cell(
    cell: int, op: int, out: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, shape: np.ndarray, a_strides: np.ndarray, start,
) -> None:
    """Reduce along the last dimension into output cell ``cell``."""
    # BEGIN SOLUTION 3.2
    last = shape.size - 1
    length = shape[last]
    out_pos = start_position(cell, shape, out_strides, last)
    a_pos = start_position(cell, shape, a_strides, last)
    acc = start
    first = 0
    if (op == MAX or op == MIN) and length > 0:  # no identity: start from the first element
        acc = a[a_pos]
        first = 1
    out[out_pos] = reduce_segment(op, acc, a[a_pos + first : a_pos + length])
    # END SOLUTION


@njit(**REDUCE_OPTIONS)
def reduce_chunk(
    task: int, chunks: int, acc: np.ndarray,
    op: int, out: np.ndarray, out_strides: np.ndarray, a: np.ndarray, shape: np.ndarray, a_strides: np.ndarray,
    dim: int,
) -> None:
    """Reduce along ``dim`` into a chunk of neighbouring output cells, ``acc`` holding their totals.

    Task ``task`` takes chunk ``task % chunks`` (of ``REDUCE_BLOCK`` cells along the last
    dimension) of row ``task // chunks``; rows count every dimension but ``dim`` and the last.
    """
    # BEGIN SOLUTION 3.2
    last = shape.size - 1
    width, length, step = shape[last], shape[dim], a_strides[dim]
    row = task // chunks
    j0 = (task % chunks) * REDUCE_BLOCK
    j1 = min(j0 + REDUCE_BLOCK, width)
    # the row's first element: an index over every dimension but the last (dim's is 0)
    remaining = row
    out_pos = 0
    a_pos = 0
    for d in range(last - 1, -1, -1):
        if d != dim:
            index = remaining % shape[d]
            remaining //= shape[d]
            out_pos += index * out_strides[d]
            a_pos += index * a_strides[d]
    totals = acc[row * width + j0 : row * width + j1]
    first = 0
    if (op == MAX or op == MIN) and length > 0:  # no identity: start from the first row
        for j in range(j1 - j0):
            totals[j] = a[a_pos + j0 + j]
        first = 1
    reduce_rows_segment(op, totals, a, a_pos + j0 + first * step, step, length - first)
    for j in range(j1 - j0):
        out[out_pos + (j0 + j) * out_strides[last]] = totals[j]
    # END SOLUTION


@njit(parallel=prange_only(), **REDUCE_OPTIONS)
def reduce_kernel(
    op: int,
    out: np.ndarray,
    out_strides: np.ndarray,
    a: np.ndarray,
    shape: np.ndarray,
    a_strides: np.ndarray,
    dim: int,
    start,
) -> None:
    """Reduce ``a`` (of ``shape``) along ``dim`` into ``out`` (``shape`` with ``shape[dim] = 1``).

    ``a``'s last dimension must be contiguous (stride 1): both loop orders run along it.

    * ``dim`` is the last dimension: each output cell reduces its own contiguous stretch
      (:func:`reduce_cell`);
    * otherwise a task takes a chunk of neighbouring output cells (along the last
      dimension) and, for each step along ``dim``, folds the matching contiguous stretch of
      ``a`` into their accumulators, so the reads stay sequential (:func:`reduce_chunk`).

    ``start`` is where a sum or a product starts, typed as the accumulator (float64 for
    floats, int64 for integers); ``max``/``min`` start from the first element instead.
    """
    # BEGIN SOLUTION 3.2
    last = shape.size - 1
    cells = count(shape, dim)
    threaded = count(shape) >= PARALLEL_MIN_WORK
    if dim == last:
        if threaded:
            for cell in prange(cells):
                reduce_cell(np.int64(cell), op, out, out_strides, a, shape, a_strides, start)
        else:
            for cell in range(cells):
                reduce_cell(cell, op, out, out_strides, a, shape, a_strides, start)
    elif cells > 0:
        chunks = (shape[last] + REDUCE_BLOCK - 1) // REDUCE_BLOCK
        tasks = (cells // shape[last]) * chunks
        acc = np.full(cells, start)  # one accumulator per output cell, in row-major order
        if threaded:
            for task in prange(tasks):
                reduce_chunk(np.int64(task), chunks, acc, op, out, out_strides, a, shape, a_strides, dim)
        else:
            for task in range(tasks):
                reduce_chunk(task, chunks, acc, op, out, out_strides, a, shape, a_strides, dim)
    # END SOLUTION


@njit(**KERNEL_OPTIONS)
def arg_reduce_cell(
    cell: int, op: int, out: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, shape: np.ndarray, a_strides: np.ndarray, dim: int,
) -> None:
    """Write into output cell ``cell`` the position along ``dim`` of the extreme value (the first on ties)."""
    # BEGIN SOLUTION 3.2
    length, step = shape[dim], a_strides[dim]
    # the cell's index over every dimension but ``dim`` (whose index is 0)
    remaining = cell
    out_pos = 0
    a_pos = 0
    for d in range(shape.size - 1, -1, -1):
        if d != dim:
            index = remaining % shape[d]
            remaining //= shape[d]
            out_pos += index * out_strides[d]
            a_pos += index * a_strides[d]
    best_at = 0
    if length > 0:
        best = a[a_pos]
        for r in range(1, length):
            x = a[a_pos + r * step]
            if is_better(op, x, best):
                best = x
                best_at = r
    out[out_pos] = best_at
    # END SOLUTION


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def arg_reduce_kernel(
    op: int, out: np.ndarray, out_strides: np.ndarray, a: np.ndarray, shape: np.ndarray, a_strides: np.ndarray, dim: int
) -> None:
    """Write into ``out`` the positions along ``dim`` of the extreme values (argmax/argmin)."""
    # BEGIN SOLUTION 3.2
    cells = count(shape, dim)
    if count(shape) < PARALLEL_MIN_WORK:
        for cell in range(cells):
            arg_reduce_cell(cell, op, out, out_strides, a, shape, a_strides, dim)
    else:
        for cell in prange(cells):
            arg_reduce_cell(np.int64(cell), op, out, out_strides, a, shape, a_strides, dim)
    # END SOLUTION


@njit(**MATMUL_OPTIONS)
def matmul_task(
    task: int, row_blocks: int, k: int,
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray,
) -> None:
    """Rows ``i0 <= i < i1`` (block ``task % row_blocks``) of matrix ``task // row_blocks`` of ``out``.

    The loops run in i-p-j order, so the innermost one adds a multiple of a row of ``b`` to
    a row of ``out`` (both contiguous: vectorised), tiled so that a block of ``b`` serves
    every row of the task while it sits in cache.
    """
    # BEGIN SOLUTION 3.3
    rank = shape.size
    n, m = shape[rank - 2], shape[rank - 1]
    a_row, a_col = a_strides[rank - 2], a_strides[rank - 1]
    b_row, out_row = b_strides[rank - 2], out_strides[rank - 2]
    # which matrices: the batch index, taken apart over the batch dimensions
    remaining = task // row_blocks
    a_base = 0
    b_base = 0
    out_base = 0
    for d in range(rank - 3, -1, -1):
        index = remaining % shape[d]
        remaining //= shape[d]
        a_base += index * a_strides[d]
        b_base += index * b_strides[d]
        out_base += index * out_strides[d]
    i0 = (task % row_blocks) * MATMUL_BLOCK_N
    i1 = min(i0 + MATMUL_BLOCK_N, n)
    for i in range(i0, i1):
        out_part = out[out_base + i * out_row : out_base + i * out_row + m]
        for j in range(m):
            out_part[j] = 0
    for p0 in range(0, k, MATMUL_BLOCK_K):
        p1 = min(p0 + MATMUL_BLOCK_K, k)
        for j0 in range(0, m, MATMUL_BLOCK_M):
            j1 = min(j0 + MATMUL_BLOCK_M, m)
            for i in range(i0, i1):
                out_part = out[out_base + i * out_row + j0 : out_base + i * out_row + j1]
                for p in range(p0, p1):
                    x = a[a_base + i * a_row + p * a_col]
                    b_part = b[b_base + p * b_row + j0 : b_base + p * b_row + j1]
                    for j in range(j1 - j0):
                        out_part[j] += x * b_part[j]
    # END SOLUTION


@njit(parallel=prange_only(), **MATMUL_OPTIONS)
def matmul_kernel(
    out: np.ndarray,
    shape: np.ndarray,
    out_strides: np.ndarray,
    a: np.ndarray,
    a_strides: np.ndarray,
    b: np.ndarray,
    b_strides: np.ndarray,
    k: int,
) -> None:
    """``out[..., i, j] = sum_p a[..., i, p] * b[..., p, j]`` over ``out``'s ``shape`` ``(*batch, n, m)``.

    ``a_strides``/``b_strides`` are full-rank, their batch part expanded to ``out``'s batch
    shape; the rows of ``b`` and ``out`` must be contiguous (last stride 1). The tasks are
    (matrix, block of ``MATMUL_BLOCK_N`` rows) pairs.
    """
    # BEGIN SOLUTION 3.3
    rank = shape.size
    row_blocks = (shape[rank - 2] + MATMUL_BLOCK_N - 1) // MATMUL_BLOCK_N
    tasks = count(shape[: rank - 2]) * row_blocks
    if count(shape) * k < PARALLEL_MIN_WORK:
        for task in range(tasks):
            matmul_task(task, row_blocks, k, out, shape, out_strides, a, a_strides, b, b_strides)
    else:
        for task in prange(tasks):
            matmul_task(np.int64(task), row_blocks, k, out, shape, out_strides, a, a_strides, b, b_strides)
    # END SOLUTION
