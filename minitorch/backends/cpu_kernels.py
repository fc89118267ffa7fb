"""Numba kernels of the CPU backend.

Every function here is a module-level ``@njit(cache=True)`` function, so a fresh process
loads the compiled code from Numba's on-disk cache instead of compiling it again. The
scalar operation is picked by an integer *op code* (from :mod:`.opcodes`, the table every
backend shares), never by passing a function: a kernel that takes or closes over a function
is never found in the cache.

How the pieces fit (``zip`` as the example; ``map`` is the same with one operand):

* :func:`binary_into` is the table of ops, :func:`.opcodes.binary_into` compiled:
  ``out[pos] = op(x, y)`` by an ``if``/``elif`` chain on the op code;
* :func:`zip_run` applies one op along a *segment*: ``n`` elements, each operand walked
  with its own step from its own start; unit steps (and step 0, a broadcast number) get
  loops over slices, which LLVM turns into SIMD code;
* :func:`zip_segment` tests the op code once and calls :func:`zip_run` with it as a
  constant (``literal_unroll`` over the op codes makes each one a compile-time constant),
  so each op gets its own tight loop. (Testing it inside the loop would leave every loop
  scalar: LLVM does not hoist a 14-way test out of a loop by itself.);
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

import numpy as np
from numba import literal_unroll, njit, prange

from . import kernel_cache, opcodes

# every kernel here is cached stamped with the op table too (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: The ops that get a loop of their own, looped over with ``literal_unroll`` so that each op
#: code is a compile-time constant: the course's ops (up to ``cos`` and ``masked``). Every op
#: after them shares one loop that tests its code per element: an op added to the table then
#: costs compile time once per dtype, not a loop of its own per kernel and dtype (with a loop
#: each, the 34 unary and 20 binary ops made a fresh process's first kernel compile 2.8x longer).
UNARY_OP_CODES = tuple(range(opcodes.COS + 1))
BINARY_OP_CODES = tuple(range(opcodes.MASKED + 1))
REDUCE_OP_CODES = tuple(range(len(opcodes.REDUCE)))

#: below this many elements (multiply-adds for matmul) a kernel runs on the calling thread
PARALLEL_MIN_WORK = 1 << 16
#: a segment longer than this is split into chunks of this many elements, one task each
CHUNK = 1 << 14
#: a reduction along a dimension that is not the innermost one sweeps the reduced
#: dimension once per chunk of this many neighbouring output cells: their float64
#: accumulators (32 KiB) stay in L1 while long contiguous stretches stream in (measured on a
#: 4096 x 4096 sum over dim 0: 1024 -> 13.6 ms, 2048 -> 7.1 ms, 4096 -> 4.6 ms)
REDUCE_BLOCK = 4096
# matmul blocking (see :func:`matmul_task`), sized for a core with a 48 KiB L1 and a 2 MiB
# L2 cache: the packed rows of ``a`` (256 x 256 float32 = 256 KiB) and columns of ``b`` (as
# much) stay in L2, the 16 columns of ``b`` that all of a task's rows sweep (16 KiB) in L1.
#: rows of ``out`` per parallel task: at most ``MATMUL_BLOCK_N``, and fewer (down to
#: ``MATMUL_MIN_ROWS``) only to make ``MATMUL_MIN_TASKS`` tasks (two per thread on 2 cores)
MATMUL_BLOCK_N = 256
MATMUL_MIN_ROWS = 16
MATMUL_MIN_TASKS = 4
#: terms of a dot product summed in one go (the length of the packed rows)
MATMUL_BLOCK_K = 256
#: columns of ``b`` packed at a time
MATMUL_BLOCK_M = 256
#: columns of ``b`` swept by all of a task's rows at a time
MATMUL_TILE_M = 16
#: side of the squares in which a block is packed transposed (16 x 16 float32: 16 cache lines)
MATMUL_PACK = 16

# ``error_model="numpy"``: IEEE results (inf, nan) for a zero divisor, no ZeroDivisionError
KERNEL_OPTIONS = {"cache": True, "error_model": "numpy"}
# sums may be reordered (split over SIMD lanes); NaN and inf keep their meaning
REDUCE_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"reassoc"}}
# ``a * b + c`` may become one fused multiply-add, and a dot product may be summed in SIMD lanes
MATMUL_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"contract", "reassoc"}}


def prange_only() -> dict[str, bool]:
    """``parallel=`` options with ``prange`` as the only parallel feature.

    A fresh dict for each kernel: Numba empties the one it is given.
    """
    return {
        "prange": True, "comprehension": False, "reduction": False, "inplace_binop": False,
        "setitem": False, "numpy": False, "stencil": False, "fusion": False,
    }


# ---- the ops of :mod:`.opcodes`, compiled; LLVM inlines them, folding the chain for a constant op ----

unary_into = njit(error_model="numpy")(opcodes.unary_into)
binary_into = njit(error_model="numpy")(opcodes.binary_into)
reduce_step = njit(inline="always", error_model="numpy")(opcodes.reduce_step)
is_better = njit(inline="always", error_model="numpy")(opcodes.is_better)


# ---- segments: one op along n elements, each operand with its own start and step ----


@njit(**KERNEL_OPTIONS)
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


@njit(**KERNEL_OPTIONS)
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
    """:func:`map_run` with the op code tested once, outside the loops (for the ops that have
    a loop of their own; the others share the loop that tests it per element)."""
    if op >= len(UNARY_OP_CODES):
        map_run(op, out, out_pos, out_step, a, a_pos, a_step, n)
        return
    for code in literal_unroll(UNARY_OP_CODES):
        if op == code:
            map_run(code, out, out_pos, out_step, a, a_pos, a_step, n)


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
    """:func:`zip_run` with the op code tested once, outside the loops (for the ops that have
    a loop of their own; the others share the loop that tests it per element)."""
    if op >= len(BINARY_OP_CODES):
        zip_run(op, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)
        return
    for code in literal_unroll(BINARY_OP_CODES):
        if op == code:
            zip_run(code, out, out_pos, out_step, a, a_pos, a_step, b, b_pos, b_step, n)


@njit(**REDUCE_OPTIONS)
def reduce_run(op: int, acc, run: np.ndarray):
    """``acc`` combined in turn with each element of the contiguous ``run``."""
    for r in range(run.size):
        acc = reduce_step(op, acc, run[r])
    return acc


@njit(**REDUCE_OPTIONS)
def reduce_rows(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """``acc[j] = op(acc[j], a[start + r * row_step + j])`` for each row ``r`` in turn."""
    for r in range(rows):
        row = a[start + r * row_step : start + r * row_step + acc.size]
        for j in range(acc.size):
            acc[j] = reduce_step(op, acc[j], row[j])


@njit(**REDUCE_OPTIONS)
def reduce_segment(op: int, acc, run: np.ndarray):
    """:func:`reduce_run` with the op code tested once, outside the loop."""
    result = acc
    for code in literal_unroll(REDUCE_OP_CODES):
        if op == code:
            result = reduce_run(code, acc, run)
    return result


@njit(**REDUCE_OPTIONS)
def reduce_rows_segment(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """:func:`reduce_rows` with the op code tested once, outside the loops."""
    for code in literal_unroll(REDUCE_OP_CODES):
        if op == code:
            reduce_rows(code, acc, a, start, row_step, rows)


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
    if (op == opcodes.MAX or op == opcodes.MIN) and length > 0:  # no identity: start from the first element
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
    if (op == opcodes.MAX or op == opcodes.MIN) and length > 0:  # no identity: start from the first row
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


@njit(inline="always", **MATMUL_OPTIONS)
def matmul_pack(
    packed: np.ndarray, source: np.ndarray, start: int, row_step: int, col_step: int, rows: int, cols: int
) -> None:
    """Copy a strided ``rows`` x ``cols`` block of ``source`` into contiguous rows of ``packed``.

    ``packed[r * cols + c] = source[start + r * row_step + c * col_step]``. With the two steps
    swapped it packs the block transposed: that is how columns of ``b`` become rows.

    A transposing copy (``source`` contiguous along ``r``, as a row-major ``b``) goes by
    squares of ``MATMUL_PACK`` x ``MATMUL_PACK``, reading ``source`` along ``r``: the
    cache lines a square reads and writes are used up while they are still in L1. Copied
    plainly, either every read or every write would touch a new cache line, and with
    power-of-two strides those lines compete for the same few places in the cache.
    """
    # BEGIN SOLUTION 3.3
    if abs(row_step) < abs(col_step):
        for c0 in range(0, cols, MATMUL_PACK):
            for r0 in range(0, rows, MATMUL_PACK):
                for c in range(c0, min(c0 + MATMUL_PACK, cols)):
                    for r in range(r0, min(r0 + MATMUL_PACK, rows)):
                        packed[r * cols + c] = source[start + r * row_step + c * col_step]
    else:
        for r in range(rows):
            for c in range(cols):
                packed[r * cols + c] = source[start + r * row_step + c * col_step]
    # END SOLUTION


@njit(inline="always", **MATMUL_OPTIONS)
def matmul_dot_2x2(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray, zero):
    """The four dot products ``(a0 . b0, a0 . b1, a1 . b0, a1 . b1)`` of equally long vectors.

    The register tile of the matmul: each element loaded is used twice, and the four sums
    are independent. Since ``reassoc`` lets LLVM reorder a sum, it keeps each one as several
    SIMD registers of partial sums (one fused multiply-add per 8 float32 per register) and
    adds their lanes up once at the end, so the loop never waits on memory or on a previous
    addition. ``zero`` is 0 of ``out``'s dtype: float32 sums stay float32, as in BLAS.
    """
    # BEGIN SOLUTION 3.3
    s00 = s01 = s10 = s11 = zero
    for p in range(a0.size):
        x0, x1, y0, y1 = a0[p], a1[p], b0[p], b1[p]
        s00 += x0 * y0
        s01 += x0 * y1
        s10 += x1 * y0
        s11 += x1 * y1
    return s00, s01, s10, s11
    # END SOLUTION


@njit(**MATMUL_OPTIONS)
def matmul_task(
    task: int, rows: int, row_blocks: int, k: int,
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_strides: np.ndarray, b: np.ndarray, b_strides: np.ndarray,
) -> None:
    """``rows`` rows ``i0 <= i < i1`` (block ``task % row_blocks``) of matrix ``task // row_blocks`` of ``out``.

    Three levels of blocking, each sized for one level of the memory hierarchy:

    * a task owns a block of rows of ``out`` (the unit of parallel work, so threads never
      write to the same element);
    * each dot product ``out[i, j] = sum_p a[i, p] * b[p, j]`` is cut into pieces of
      ``MATMUL_BLOCK_K`` terms: for each piece, the task's rows of ``a`` and
      ``MATMUL_BLOCK_M`` columns of ``b`` at a time are *packed*, copied into small
      contiguous scratch arrays (columns of ``b`` become rows), which stay in L2. Packing
      costs one read of each element per block, which is what makes the kernel work on any
      strides (transposed, sliced, broadcast operands) at full speed;
    * on the packed rows, :func:`matmul_dot_2x2` computes a 2 x 2 tile of ``out`` in SIMD
      registers; the piece's sums are added into ``out``, which was zeroed first.
    """
    # BEGIN SOLUTION 3.3
    rank = shape.size
    n, m = shape[rank - 2], shape[rank - 1]
    a_row, a_col = a_strides[rank - 2], a_strides[rank - 1]
    b_row, b_col = b_strides[rank - 2], b_strides[rank - 1]
    out_row, out_col = out_strides[rank - 2], out_strides[rank - 1]
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
    i0 = (task % row_blocks) * rows
    i1 = min(i0 + rows, n)
    zero = np.zeros(1, out.dtype)[0]
    for i in range(i0, i1):
        for j in range(m):
            out[out_base + i * out_row + j * out_col] = zero
    a_packed = np.empty((i1 - i0) * min(k, MATMUL_BLOCK_K), a.dtype)
    b_packed = np.empty(min(m, MATMUL_BLOCK_M) * min(k, MATMUL_BLOCK_K), b.dtype)
    for p0 in range(0, k, MATMUL_BLOCK_K):
        kc = min(MATMUL_BLOCK_K, k - p0)
        # row r of a_packed: a[i0 + r, p0 : p0 + kc]
        matmul_pack(a_packed, a, a_base + i0 * a_row + p0 * a_col, a_row, a_col, i1 - i0, kc)
        for j0 in range(0, m, MATMUL_BLOCK_M):
            j1 = min(j0 + MATMUL_BLOCK_M, m)
            # row c of b_packed: b[p0 : p0 + kc, j0 + c], a column of b
            matmul_pack(b_packed, b, b_base + p0 * b_row + j0 * b_col, b_col, b_row, j1 - j0, kc)
            for t0 in range(j0, j1, MATMUL_TILE_M):
                t1 = min(t0 + MATMUL_TILE_M, j1)
                for i in range(i0, i1, 2):
                    i_next = min(i + 1, i1 - 1)  # an odd last row is paired with itself
                    a0 = a_packed[(i - i0) * kc : (i - i0 + 1) * kc]
                    a1 = a_packed[(i_next - i0) * kc : (i_next - i0 + 1) * kc]
                    for j in range(t0, t1, 2):
                        j_next = min(j + 1, t1 - 1)
                        b0 = b_packed[(j - j0) * kc : (j - j0 + 1) * kc]
                        b1 = b_packed[(j_next - j0) * kc : (j_next - j0 + 1) * kc]
                        s00, s01, s10, s11 = matmul_dot_2x2(a0, a1, b0, b1, zero)
                        pos = out_base + i * out_row + j * out_col
                        out[pos] += s00
                        if j_next > j:
                            out[pos + out_col] += s01
                        if i_next > i:
                            out[pos + out_row] += s10
                            if j_next > j:
                                out[pos + out_row + out_col] += s11
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

    Any strides: ``a_strides``/``b_strides`` are full-rank, their batch part expanded to
    ``out``'s batch shape (stride 0 where a batch is broadcast). The tasks are (matrix,
    block of rows) pairs, shared by the threads with ``prange``; each is computed by
    :func:`matmul_task`, blocked for the caches and for SIMD registers. Every task packs
    all of ``b`` for itself, so the blocks are as tall as they can be (up to
    ``MATMUL_BLOCK_N`` rows) while still making ``MATMUL_MIN_TASKS`` tasks.

    Why blocking: the naive loop ``for i, for j, for p`` reads a whole column of ``b`` (one
    cache line per element) for every ``out[i, j]``, and adds each product to the previous
    sum, one addition at a time. Working on blocks that stay in cache, and on several
    independent sums at once, lets the arithmetic units run instead of waiting.
    """
    # BEGIN SOLUTION 3.3
    if count(shape) == 0:
        return
    rank = shape.size
    n = shape[rank - 2]
    matrices = count(shape[: rank - 2])
    share = (matrices * n + MATMUL_MIN_TASKS - 1) // MATMUL_MIN_TASKS
    rows = min(MATMUL_BLOCK_N, n, max(MATMUL_MIN_ROWS, share + share % 2))
    row_blocks = (n + rows - 1) // rows
    tasks = matrices * row_blocks
    if count(shape) * k < PARALLEL_MIN_WORK:
        for task in range(tasks):
            matmul_task(task, rows, row_blocks, k, out, shape, out_strides, a, a_strides, b, b_strides)
    else:
        for task in prange(tasks):
            matmul_task(np.int64(task), rows, row_blocks, k, out, shape, out_strides, a, a_strides, b, b_strides)
    # END SOLUTION
