"""Numba kernels of the CPU backend.

Every kernel is a module-level ``@njit(cache=True)`` function, so a fresh process loads it
from Numba's on-disk cache instead of compiling it again. The scalar operation is picked by
an integer *op code* (the constants below) in an ``if``/``elif`` chain inlined into the
loops; the code does not change inside a loop, so LLVM moves the test out of it
("unswitching") and each op runs as its own tight loop.

Each kernel is written once, as an inlined ``*_kernel`` body whose outer loop is a
``prange``, and compiled twice: ``*_parallel`` (``parallel=True``: threads share the
``prange``) and ``*_serial`` (``prange`` is a plain ``range``). Starting threads costs a few
microseconds on an idle machine and far more on a busy one, so small tensors take the
serial entry point (the backend picks it by size).

Conventions shared by the kernels:

* arrays are the views' ``buffer`` (1-D, starting at the view's first element), so a
  position is ``sum(index[d] * strides[d])`` with no offset;
* shapes and strides are int64 arrays (one Numba type whatever the rank), an operand's
  strides already expanded to ``out``'s shape (stride 0 along broadcast dimensions);
* elementwise ops store their result straight into ``out``, so Numba casts it to
  ``out``'s dtype (``True``/``False`` into bool, a float into an int truncates as in NumPy)
  and an int64 never goes through a float64 on its way.
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
#: how an operand lines up with a contiguous ``out`` (see :func:`flat_layout`)
STRIDED, SAME, SCALAR = range(3)

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


# ---- scalar ops, inlined into the loops ----


@njit(inline="always", **KERNEL_OPTIONS)
def unary_into(op: int, x, out: np.ndarray, pos: int) -> None:
    """``out[pos] = op(x)`` for a unary op code."""
    # BEGIN SOLUTION
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


@njit(inline="always", **KERNEL_OPTIONS)
def binary_into(op: int, x, y, out: np.ndarray, pos: int) -> None:
    """``out[pos] = op(x, y)`` for a binary op code."""
    # BEGIN SOLUTION
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


# ---- index helpers ----


@njit(inline="always", **KERNEL_OPTIONS)
def is_contiguous(shape: np.ndarray, strides: np.ndarray) -> bool:
    """True when ``strides`` lay ``shape`` out row-major with no gaps: element ``i`` at position ``i``."""
    expected = 1
    for d in range(shape.size - 1, -1, -1):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


@njit(inline="always", **KERNEL_OPTIONS)
def flat_layout(shape: np.ndarray, out_strides: np.ndarray, strides: np.ndarray) -> int:
    """How an operand reads in a flat loop over a contiguous ``out``.

    ``SAME`` (the operand's element ``i`` is at position ``i`` too), ``SCALAR`` (every
    stride is 0: one element broadcast everywhere) or ``STRIDED`` (needs index math).
    """
    same = True
    scalar = True
    for d in range(shape.size):
        if shape[d] != 1:
            same = same and strides[d] == out_strides[d]
            scalar = scalar and strides[d] == 0
    return SAME if same else (SCALAR if scalar else STRIDED)


@njit(inline="always", **KERNEL_OPTIONS)
def row_position(row: int, shape: np.ndarray, strides: np.ndarray) -> int:
    """Position of the first element of row ``row``, rows counting every dim but the last."""
    # BEGIN SOLUTION
    remaining = row + 0  # a copy: ``row`` may be a prange index, which must not be overwritten
    position = 0
    for d in range(shape.size - 2, -1, -1):
        position += (remaining % shape[d]) * strides[d]
        remaining //= shape[d]
    return position
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
def count(shape: np.ndarray, skip: int = -1) -> int:
    """Number of elements of ``shape``, leaving out dimension ``skip`` if given."""
    size = 1
    for d in range(shape.size):
        if d != skip:
            size *= shape[d]
    return size




@njit(inline="always", **KERNEL_OPTIONS)
def reduce_step(op: int, acc, x):
    """One step of a reduction: ``acc`` combined with the next value ``x``."""
    # BEGIN SOLUTION
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
    # BEGIN SOLUTION
    if op == ARGMAX:
        return x > best or (x != x and best == best)
    else:  # ARGMIN
        return x < best or (x != x and best == best)
    # END SOLUTION


# ---- kernel bodies: ``prange`` loops, inlined into a parallel and a serial entry point ----


@njit(inline="always", **KERNEL_OPTIONS)
def map_kernel(
    op: int, out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray, a: np.ndarray, a_strides: np.ndarray
) -> None:
    """``out[i] = op(a[i])`` for every index ``i`` of ``shape``."""
    # BEGIN SOLUTION
    size = count(shape)
    if is_contiguous(shape, out_strides) and flat_layout(shape, out_strides, a_strides) == SAME:
        for i in prange(size):
            unary_into(op, a[i], out, i)
    elif size > 0:
        last = shape.size - 1
        width = shape[last]
        out_step, a_step = out_strides[last], a_strides[last]
        for row in prange(size // width):
            out_pos = row_position(row, shape, out_strides)
            a_pos = row_position(row, shape, a_strides)
            for j in range(width):
                unary_into(op, a[a_pos + j * a_step], out, out_pos + j * out_step)
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
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
    # BEGIN SOLUTION
    size = count(shape)
    a_layout, b_layout = STRIDED, STRIDED
    if is_contiguous(shape, out_strides):
        a_layout = flat_layout(shape, out_strides, a_strides)
        b_layout = flat_layout(shape, out_strides, b_strides)
    if a_layout == SAME and b_layout == SAME:
        for i in prange(size):
            binary_into(op, a[i], b[i], out, i)
    elif a_layout == SAME and b_layout == SCALAR:  # e.g. ``x * 2``: read the number once
        y = b[0]
        for i in prange(size):
            binary_into(op, a[i], y, out, i)
    elif a_layout == SCALAR and b_layout == SAME:
        x = a[0]
        for i in prange(size):
            binary_into(op, x, b[i], out, i)
    elif size > 0:
        last = shape.size - 1
        width = shape[last]
        out_step, a_step, b_step = out_strides[last], a_strides[last], b_strides[last]
        for row in prange(size // width):
            out_pos = row_position(row, shape, out_strides)
            a_pos = row_position(row, shape, a_strides)
            b_pos = row_position(row, shape, b_strides)
            for j in range(width):
                binary_into(op, a[a_pos + j * a_step], b[b_pos + j * b_step], out, out_pos + j * out_step)
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
def reduce_run(op: int, acc, run: np.ndarray):
    """``acc`` combined in turn with each element of the contiguous ``run``."""
    for r in range(run.size):
        acc = reduce_step(op, acc, run[r])
    return acc


@njit(inline="always", **KERNEL_OPTIONS)
def reduce_rows(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """``acc[j] = op(acc[j], a[start + r * row_step + j])`` for each row ``r`` in turn."""
    for r in range(rows):
        row = a[start + r * row_step : start + r * row_step + acc.size]
        for j in range(acc.size):
            acc[j] = reduce_step(op, acc[j], row[j])


# Two details make these loops vectorise (measured ~4x faster for a sum):
# * LLVM does not take a 4-way test of the op code out of a loop by itself, so the op is
#   tested once, outside, and each branch runs a loop for one constant op (inlined with a
#   constant, ``reduce_step`` folds down to that one operation);
# * the loops index a slice from 0 (``run[r]``, not ``a[start + r]``): Numba wraps negative
#   indices around, and only an index known to be >= 0 lets LLVM read consecutive elements.


@njit(inline="always", **KERNEL_OPTIONS)
def reduce_run_op(op: int, acc, run: np.ndarray):
    """:func:`reduce_run` with the op code tested once, outside the loop."""
    if op == SUM:
        return reduce_run(SUM, acc, run)
    elif op == PROD:
        return reduce_run(PROD, acc, run)
    elif op == MAX:
        return reduce_run(MAX, acc, run)
    else:
        return reduce_run(MIN, acc, run)


@njit(inline="always", **KERNEL_OPTIONS)
def reduce_rows_op(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """:func:`reduce_rows` with the op code tested once, outside the loops."""
    if op == SUM:
        reduce_rows(SUM, acc, a, start, row_step, rows)
    elif op == PROD:
        reduce_rows(PROD, acc, a, start, row_step, rows)
    elif op == MAX:
        reduce_rows(MAX, acc, a, start, row_step, rows)
    else:
        reduce_rows(MIN, acc, a, start, row_step, rows)


@njit(inline="always", **KERNEL_OPTIONS)
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

    * ``dim`` is the last dimension: each output cell sums its own contiguous stretch;
    * otherwise a task takes a chunk of neighbouring output cells (along the last
      dimension) and, for each step along ``dim``, adds the matching contiguous stretch of
      ``a`` into their accumulators, so the reads stay sequential.

    ``start`` is where a sum or a product starts, typed as the accumulator (float64 for
    floats, int64 for integers); ``max``/``min`` start from the first element instead.
    """
    # BEGIN SOLUTION
    last = shape.size - 1
    length, step = shape[dim], a_strides[dim]
    cells = count(shape, dim)
    from_first = (op == MAX or op == MIN) and length > 0  # no identity: start at element 0
    first = 1 if from_first else 0
    if dim == last:
        for cell in prange(cells):
            out_pos = row_position(cell, shape, out_strides)
            a_pos = row_position(cell, shape, a_strides)
            acc = start
            if from_first:
                acc = a[a_pos]
            out[out_pos] = reduce_run_op(op, acc, a[a_pos + first : a_pos + length])
    elif cells > 0:
        width = shape[last]
        chunks = (width + REDUCE_BLOCK - 1) // REDUCE_BLOCK
        acc = np.full(cells, start)  # the accumulators, one per output cell, in row-major order
        for task in prange((cells // width) * chunks):
            row = task // chunks
            j0 = (task % chunks) * REDUCE_BLOCK
            j1 = min(j0 + REDUCE_BLOCK, width)
            # the row's first element: an index over every dimension but the last (dim's is 0)
            remaining = row + 0
            out_pos = 0
            a_pos = 0
            for d in range(last - 1, -1, -1):
                if d != dim:
                    index = remaining % shape[d]
                    remaining //= shape[d]
                    out_pos += index * out_strides[d]
                    a_pos += index * a_strides[d]
            chunk = acc[row * width + j0 : row * width + j1]
            if from_first:
                for j in range(j1 - j0):
                    chunk[j] = a[a_pos + j0 + j]
            reduce_rows_op(op, chunk, a, a_pos + j0 + first * step, step, length - first)
            out_step = out_strides[last]
            for j in range(j1 - j0):
                out[out_pos + (j0 + j) * out_step] = chunk[j]
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
def arg_reduce_kernel(
    op: int, out: np.ndarray, out_strides: np.ndarray, a: np.ndarray, shape: np.ndarray, a_strides: np.ndarray, dim: int
) -> None:
    """Write into ``out`` the position along ``dim`` of each extreme value (the first on ties)."""
    # BEGIN SOLUTION
    length, step = shape[dim], a_strides[dim]
    cells = count(shape, dim)
    for cell in prange(cells):
        # the cell's index over every dimension but ``dim`` (whose index is 0)
        remaining = cell + 0
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


@njit(inline="always", **KERNEL_OPTIONS)
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
    shape; the rows of ``b`` and ``out`` must be contiguous (last stride 1). Parallel over
    (batch, block of rows). The loops run in i-p-j order, so the innermost one adds a
    multiple of a row of ``b`` to a row of ``out`` (both contiguous: vectorised), and are
    tiled so that a block of ``b`` serves every row of the task while it sits in cache.
    """
    # BEGIN SOLUTION
    rank = shape.size
    n, m = shape[rank - 2], shape[rank - 1]
    a_row, a_col = a_strides[rank - 2], a_strides[rank - 1]
    b_row, out_row = b_strides[rank - 2], out_strides[rank - 2]
    row_blocks = (n + MATMUL_BLOCK_N - 1) // MATMUL_BLOCK_N
    batches = count(shape[: rank - 2])
    for task in prange(batches * row_blocks):
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
            out[out_base + i * out_row : out_base + i * out_row + m] = 0
        for p0 in range(0, k, MATMUL_BLOCK_K):
            p1 = min(p0 + MATMUL_BLOCK_K, k)
            for j0 in range(0, m, MATMUL_BLOCK_M):
                j1 = min(j0 + MATMUL_BLOCK_M, m)
                for i in range(i0, i1):
                    # slices indexed from 0: Numba's wraparound of negative indices would
                    # otherwise keep LLVM from vectorising the loop over j
                    out_part = out[out_base + i * out_row + j0 : out_base + i * out_row + j1]
                    for p in range(p0, p1):
                        x = a[a_base + i * a_row + p * a_col]
                        b_part = b[b_base + p * b_row + j0 : b_base + p * b_row + j1]
                        for j in range(j1 - j0):
                            out_part[j] += x * b_part[j]
    # END SOLUTION


# ---- entry points: each body compiled with threads and without ----


@njit(parallel=True, **KERNEL_OPTIONS)
def map_parallel(op, out, shape, out_strides, a, a_strides):  # noqa: ANN001, ANN201 - see map_kernel
    map_kernel(op, out, shape, out_strides, a, a_strides)


@njit(**KERNEL_OPTIONS)
def map_serial(op, out, shape, out_strides, a, a_strides):  # noqa: ANN001, ANN201
    map_kernel(op, out, shape, out_strides, a, a_strides)


@njit(parallel=True, **KERNEL_OPTIONS)
def zip_parallel(op, out, shape, out_strides, a, a_strides, b, b_strides):  # noqa: ANN001, ANN201
    zip_kernel(op, out, shape, out_strides, a, a_strides, b, b_strides)


@njit(**KERNEL_OPTIONS)
def zip_serial(op, out, shape, out_strides, a, a_strides, b, b_strides):  # noqa: ANN001, ANN201
    zip_kernel(op, out, shape, out_strides, a, a_strides, b, b_strides)


@njit(parallel=True, **REDUCE_OPTIONS)
def reduce_parallel(op, out, out_strides, a, shape, a_strides, dim, start):  # noqa: ANN001, ANN201
    reduce_kernel(op, out, out_strides, a, shape, a_strides, dim, start)


@njit(**REDUCE_OPTIONS)
def reduce_serial(op, out, out_strides, a, shape, a_strides, dim, start):  # noqa: ANN001, ANN201
    reduce_kernel(op, out, out_strides, a, shape, a_strides, dim, start)


@njit(parallel=True, **KERNEL_OPTIONS)
def arg_reduce_parallel(op, out, out_strides, a, shape, a_strides, dim):  # noqa: ANN001, ANN201
    arg_reduce_kernel(op, out, out_strides, a, shape, a_strides, dim)


@njit(**KERNEL_OPTIONS)
def arg_reduce_serial(op, out, out_strides, a, shape, a_strides, dim):  # noqa: ANN001, ANN201
    arg_reduce_kernel(op, out, out_strides, a, shape, a_strides, dim)


@njit(parallel=True, **MATMUL_OPTIONS)
def matmul_parallel(out, shape, out_strides, a, a_strides, b, b_strides, k):  # noqa: ANN001, ANN201
    matmul_kernel(out, shape, out_strides, a, a_strides, b, b_strides, k)


@njit(**MATMUL_OPTIONS)
def matmul_serial(out, shape, out_strides, a, a_strides, b, b_strides, k):  # noqa: ANN001, ANN201
    matmul_kernel(out, shape, out_strides, a, a_strides, b, b_strides, k)
