"""Numba ``@cuda.jit`` kernels of the cuda backend.

The same ops as :mod:`.cpu_kernels`, written for thousands of threads instead of two. The
scalar operation is picked by an integer *op code* of :mod:`.opcodes` (whose scalar bodies
are compiled here as device functions), so one compiled kernel serves every op of a dtype. Views arrive as their whole ``storage`` plus an ``offset``; shapes and strides
arrive as tuples of ints, which the launch passes by value (no copy to the device for them).

* :func:`map_kernel`, :func:`zip_kernel`: a 1-D grid, one thread per output element (a
  grid-stride loop when there are more elements than threads). A thread turns its ordinal
  into an index in a *local* buffer, then the index into a position in each operand.
* :func:`reduce_kernel`: one block per output cell (grid-stride over cells). Each thread
  folds every ``threads``-th element of the reduced dimension, so any length is covered in
  one pass; then the block combines the per-thread results with a tree in shared memory.
* :func:`arg_reduce_kernel`: the same with a (value, position) pair per thread.
* :func:`matmul_kernel`: square tiles of ``out`` per block; the block walks the shared
  ``k`` dimension one tile at a time, staging a tile of ``a`` and one of ``b`` in shared
  memory, so each global element is read once per tile and each output written once.

Sizes that must be compile-time constants (shared arrays) are arguments of small factories,
cached per value: the tests shrink them so that a tiny input still spans several tiles.

Conventions as in :mod:`.cpu_kernels`: operands' strides are already expanded to ``out``'s
shape (stride 0 where broadcast), bool operands are read as uint8, and each op stores its
result straight into ``out`` so Numba casts it to ``out``'s dtype.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numba
from numba import cuda

from . import opcodes

#: the most dimensions a tensor may have on the device (the size of the local index buffers)
MAX_DIMS = 32

int64 = numba.int64


# ---- indexing (device functions) ----


@cuda.jit(device=True)
def to_index(ordinal: int, shape: tuple, index: Any) -> None:
    """Write the row-major index of element ``ordinal`` of ``shape`` into ``index``."""
    # BEGIN SOLUTION 3.4
    remaining = ordinal
    for d in range(len(shape) - 1, -1, -1):
        index[d] = remaining % shape[d]
        remaining //= shape[d]
    # END SOLUTION


@cuda.jit(device=True)
def index_to_position(index: Any, strides: tuple, offset: int) -> int:
    r"""Storage position of ``index``: :math:`\mathrm{offset} + \sum_d \mathrm{index}_d \cdot \mathrm{strides}_d`."""
    # BEGIN SOLUTION 3.4
    position = offset
    for d in range(len(strides)):
        position += index[d] * strides[d]
    return position
    # END SOLUTION


# ---- the ops of :mod:`.opcodes`, compiled as device functions ----

unary_into = cuda.jit(device=True)(opcodes.unary_into)
binary_into = cuda.jit(device=True)(opcodes.binary_into)
reduce_step = cuda.jit(device=True)(opcodes.reduce_step)
is_better = cuda.jit(device=True)(opcodes.is_better)


# ---- elementwise kernels ----


@cuda.jit
def map_kernel(
    op: int, size: int, dense: bool,
    out: Any, out_offset: int, shape: tuple, out_strides: tuple,
    a: Any, a_offset: int, a_strides: tuple,
) -> None:
    """``out[i] = op(a[i])`` for every index ``i`` of ``shape`` (``size`` elements).

    ``dense``: both views are contiguous with equal strides, so a position is the ordinal.
    """
    # BEGIN SOLUTION 3.4
    index = cuda.local.array(MAX_DIMS, int64)
    for ordinal in range(cuda.grid(1), size, cuda.gridsize(1)):
        if dense:
            unary_into(op, a[a_offset + ordinal], out, out_offset + ordinal)
        else:
            to_index(ordinal, shape, index)
            x = a[index_to_position(index, a_strides, a_offset)]
            unary_into(op, x, out, index_to_position(index, out_strides, out_offset))
    # END SOLUTION


@cuda.jit
def zip_kernel(
    op: int, size: int, dense: bool,
    out: Any, out_offset: int, shape: tuple, out_strides: tuple,
    a: Any, a_offset: int, a_strides: tuple,
    b: Any, b_offset: int, b_strides: tuple,
) -> None:
    """``out[i] = op(a[i], b[i])`` for every index ``i`` of ``shape`` (``size`` elements)."""
    # BEGIN SOLUTION 3.4
    index = cuda.local.array(MAX_DIMS, int64)
    for ordinal in range(cuda.grid(1), size, cuda.gridsize(1)):
        if dense:
            binary_into(op, a[a_offset + ordinal], b[b_offset + ordinal], out, out_offset + ordinal)
        else:
            to_index(ordinal, shape, index)
            x = a[index_to_position(index, a_strides, a_offset)]
            y = b[index_to_position(index, b_strides, b_offset)]
            binary_into(op, x, y, out, index_to_position(index, out_strides, out_offset))
    # END SOLUTION


# ---- reductions ----


@lru_cache(maxsize=None)
def reduce_kernel(max_threads: int, acc_type: Any) -> Any:
    """The reduction kernel for blocks of at most ``max_threads`` threads (a power of two),
    accumulating in ``acc_type`` (a Numba type). Launch it with a 1-D block whose size is a
    power of two no larger than ``max_threads``.

    Kernel arguments: ``op, out_cells, out, out_offset, out_shape, out_strides, a, a_offset,
    a_strides, dim, length, start`` where ``out_shape`` is ``a``'s shape with ``dim`` set
    to 1, ``length`` is ``a.shape[dim]`` and ``start`` the value of an empty reduction.
    """

    @cuda.jit
    def kernel(
        op: int, out_cells: int, out: Any, out_offset: int, out_shape: tuple, out_strides: tuple,
        a: Any, a_offset: int, a_strides: tuple, dim: int, length: int, start: Any,
    ) -> None:
        # BEGIN SOLUTION 3.5
        cache = cuda.shared.array(max_threads, acc_type)
        index = cuda.local.array(MAX_DIMS, int64)
        tid = cuda.threadIdx.x
        threads = cuda.blockDim.x
        step = a_strides[dim]
        # threads tid < active hold a value: thread tid folds elements tid, tid + threads, ...
        active = min(length, threads)
        for cell in range(cuda.blockIdx.x, out_cells, cuda.gridDim.x):
            to_index(cell, out_shape, index)  # index[dim] is 0: the first element reduced
            base = index_to_position(index, a_strides, a_offset)
            if tid < active:
                acc = acc_type(a[base + tid * step])
                for j in range(tid + threads, length, threads):
                    acc = reduce_step(op, acc, a[base + j * step])
                cache[tid] = acc
            cuda.syncthreads()
            half = threads // 2
            while half > 0:  # tree: cache[t] takes in cache[t + half] while that one holds a value
                if tid < half and tid + half < active:
                    cache[tid] = reduce_step(op, cache[tid], cache[tid + half])
                cuda.syncthreads()
                half //= 2
            if tid == 0:
                position = index_to_position(index, out_strides, out_offset)
                if length > 0:
                    out[position] = cache[0]
                else:
                    out[position] = start
            cuda.syncthreads()  # the cache is reused for the next cell
        # END SOLUTION

    return kernel


@lru_cache(maxsize=None)
def arg_reduce_kernel(max_threads: int, value_type: Any) -> Any:
    """Like :func:`reduce_kernel`, keeping the position of the best value along ``dim``.

    Kernel arguments: ``op, out_cells, out, out_offset, out_shape, out_strides, a, a_offset,
    a_strides, dim, length``. Ties go to the first position; a NaN beats any number.
    """

    @cuda.jit
    def kernel(
        op: int, out_cells: int, out: Any, out_offset: int, out_shape: tuple, out_strides: tuple,
        a: Any, a_offset: int, a_strides: tuple, dim: int, length: int,
    ) -> None:
        # BEGIN SOLUTION 3.6
        values = cuda.shared.array(max_threads, value_type)
        positions = cuda.shared.array(max_threads, int64)
        index = cuda.local.array(MAX_DIMS, int64)
        tid = cuda.threadIdx.x
        threads = cuda.blockDim.x
        step = a_strides[dim]
        active = min(length, threads)
        for cell in range(cuda.blockIdx.x, out_cells, cuda.gridDim.x):
            to_index(cell, out_shape, index)
            base = index_to_position(index, a_strides, a_offset)
            if tid < active:
                best = value_type(a[base + tid * step])
                best_at = tid
                for j in range(tid + threads, length, threads):  # positions rise: ties keep the first
                    x = value_type(a[base + j * step])
                    if is_better(op, x, best):
                        best, best_at = x, j
                values[tid] = best
                positions[tid] = best_at
            cuda.syncthreads()
            half = threads // 2
            while half > 0:
                if tid < half and tid + half < active:
                    x, x_at = values[tid + half], positions[tid + half]
                    mine = values[tid]
                    # take the other if strictly better, or equally good and earlier
                    if is_better(op, x, mine) or (not is_better(op, mine, x) and x_at < positions[tid]):
                        values[tid] = x
                        positions[tid] = x_at
                cuda.syncthreads()
                half //= 2
            if tid == 0:
                out[index_to_position(index, out_strides, out_offset)] = positions[0] if length > 0 else 0
            cuda.syncthreads()
        # END SOLUTION

    return kernel


# ---- matrix product ----


@lru_cache(maxsize=None)
def matmul_kernel(tile: int, acc_type: Any) -> Any:
    """The tiled matmul kernel for ``tile`` x ``tile`` blocks accumulating in ``acc_type``.

    Launch with block ``(tile, tile)`` and grid ``(ceil(m / tile), ceil(n / tile), batches)``
    (grid-stride over batches beyond the grid). Kernel arguments: ``batches, out, out_offset,
    out_shape, out_strides, a, a_offset, a_strides, b, b_offset, b_strides, k`` where
    ``out_shape`` is ``(*batch, n, m)`` and ``a``'s and ``b``'s strides are expanded to
    ``out``'s batch dimensions (0 where a batch is broadcast).
    """

    @cuda.jit
    def kernel(
        batches: int, out: Any, out_offset: int, out_shape: tuple, out_strides: tuple,
        a: Any, a_offset: int, a_strides: tuple, b: Any, b_offset: int, b_strides: tuple, k: int,
    ) -> None:
        # BEGIN SOLUTION 3.7
        a_tile = cuda.shared.array((tile, tile), acc_type)
        b_tile = cuda.shared.array((tile, tile), acc_type)
        rank = len(out_shape)
        n, m = out_shape[rank - 2], out_shape[rank - 1]
        row_in_tile, col_in_tile = cuda.threadIdx.y, cuda.threadIdx.x
        i = cuda.blockIdx.y * tile + row_in_tile  # this thread's cell of out: (i, j)
        j = cuda.blockIdx.x * tile + col_in_tile
        for batch in range(cuda.blockIdx.z, batches, cuda.gridDim.z):
            # the batch's first element in each operand
            a_pos, b_pos, out_pos = a_offset, b_offset, out_offset
            remaining = batch
            for d in range(rank - 3, -1, -1):
                at = remaining % out_shape[d]
                remaining //= out_shape[d]
                a_pos += at * a_strides[d]
                b_pos += at * b_strides[d]
                out_pos += at * out_strides[d]
            acc = acc_type(0)
            for start in range(0, k, tile):
                # each thread stages one element of a's tile and one of b's (0 outside the matrices)
                p = start + col_in_tile
                if i < n and p < k:
                    a_tile[row_in_tile, col_in_tile] = a[a_pos + i * a_strides[rank - 2] + p * a_strides[rank - 1]]
                else:
                    a_tile[row_in_tile, col_in_tile] = 0
                p = start + row_in_tile
                if p < k and j < m:
                    b_tile[row_in_tile, col_in_tile] = b[b_pos + p * b_strides[rank - 2] + j * b_strides[rank - 1]]
                else:
                    b_tile[row_in_tile, col_in_tile] = 0
                cuda.syncthreads()
                for q in range(min(tile, k - start)):
                    acc += a_tile[row_in_tile, q] * b_tile[q, col_in_tile]
                cuda.syncthreads()  # everyone is done with the tiles before they are overwritten
            if i < n and j < m:
                out[out_pos + i * out_strides[rank - 2] + j * out_strides[rank - 1]] = acc
        # END SOLUTION

    return kernel


# ---- indexing primitives: overlapping accumulation, gather, scatter-add ----


@cuda.jit
def accumulate_kernel(
    size: int, out: Any, out_offset: int, shape: tuple, out_strides: tuple,
    src: Any, src_offset: int, src_strides: tuple,
) -> None:
    """``out[i] += src[i]`` for every index ``i`` of ``shape``.

    ``out`` may map several indices to one storage element (overlapping windows): the adds
    are atomic, so every contribution lands, in some order.
    """
    index = cuda.local.array(MAX_DIMS, int64)
    for ordinal in range(cuda.grid(1), size, cuda.gridsize(1)):
        to_index(ordinal, shape, index)
        value = src[index_to_position(index, src_strides, src_offset)]
        cuda.atomic.add(out, index_to_position(index, out_strides, out_offset), value)


@cuda.jit(device=True)
def position_moved_along(
    dim: int, index: Any, strides: tuple, offset: int, where: Any, where_strides: tuple, where_offset: int
) -> int:
    """The position in a view (``strides``, ``offset``) of ``index`` with ``index[dim]``
    replaced by ``where[index]``: where gather reads and scatter_add writes."""
    at = where[index_to_position(index, where_strides, where_offset)]
    return index_to_position(index, strides, offset) + (at - index[dim]) * strides[dim]


@cuda.jit
def gather_kernel(
    size: int, dim: int, out: Any, out_offset: int, shape: tuple, out_strides: tuple,
    a: Any, a_offset: int, a_strides: tuple, where: Any, where_offset: int, where_strides: tuple,
) -> None:
    """``out[i] = a[i with i[dim] = where[i]]`` for every index ``i`` of ``shape``."""
    index = cuda.local.array(MAX_DIMS, int64)
    for ordinal in range(cuda.grid(1), size, cuda.gridsize(1)):
        to_index(ordinal, shape, index)
        position = position_moved_along(dim, index, a_strides, a_offset, where, where_strides, where_offset)
        out[index_to_position(index, out_strides, out_offset)] = a[position]


@cuda.jit
def scatter_add_kernel(
    size: int, dim: int, out: Any, out_offset: int, out_strides: tuple, shape: tuple,
    src: Any, src_offset: int, src_strides: tuple, where: Any, where_offset: int, where_strides: tuple,
) -> None:
    """``out[i with i[dim] = where[i]] += src[i]`` for every index ``i`` of ``shape`` (atomic adds)."""
    index = cuda.local.array(MAX_DIMS, int64)
    for ordinal in range(cuda.grid(1), size, cuda.gridsize(1)):
        to_index(ordinal, shape, index)
        position = position_moved_along(dim, index, out_strides, out_offset, where, where_strides, where_offset)
        cuda.atomic.add(out, position, src[index_to_position(index, src_strides, src_offset)])
