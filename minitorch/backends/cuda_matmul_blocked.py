r"""A register-blocked matrix product for the cuda backend: float32 and float64.

The students' kernel (task 3.7, :func:`.cuda_kernels.matmul_kernel`) gives each thread one
cell of ``out``: for every multiply-add it reads one value of ``a``'s tile and one of
``b``'s from shared memory, so shared memory, not arithmetic, sets its pace. Here a block
computes a ``block_m`` x ``block_n`` tile of ``out`` and each of its threads a
``thread_m`` x ``thread_n`` block of cells held in registers. Per step along :math:`k` a
thread reads ``thread_m`` values of ``a``'s tile and ``thread_n`` of ``b``'s and does
``thread_m * thread_n`` multiply-adds with them:

.. math::

    \mathrm{acc}_{xy} \mathrel{+}= a_{r_x p}\, b_{p c_y}, \qquad
    r_x = r_0 + t_r + x\,T_m, \quad c_y = c_0 + t_c + y\,T_n

where :math:`(t_r, t_c)` is the thread's place among the block's :math:`T_m \times T_n`
threads. A thread's rows (and columns) are :math:`T_m` (:math:`T_n`) apart, not next to each
other: neighbouring threads then read neighbouring words of a tile (no shared-memory bank
conflicts) and write neighbouring cells of ``out`` (coalesced stores).

The sizes are compile-time constants of each kernel (Numba unrolls the loops over them, so
the accumulators can live in registers); :data:`.cuda.BLOCKED_MATMUL` chooses them. Operands
are read through their strides, like the students' kernel: any view, any batch broadcast.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from numba import cuda


def check_blocking(block_m: int, block_n: int, block_k: int, thread_m: int, thread_n: int) -> int:
    """The threads of one block for these sizes; a ValueError unless the tiles divide evenly
    (each thread then stages the same number of elements of both tiles)."""
    sizes = {"block_m": block_m, "block_n": block_n, "block_k": block_k, "thread_m": thread_m, "thread_n": thread_n}
    if any(value < 1 for value in sizes.values()):
        raise ValueError(f"matmul blocking sizes must be positive, got {sizes}")
    if block_m % thread_m or block_n % thread_n:
        raise ValueError(f"thread_m must divide block_m and thread_n block_n, got {sizes}")
    threads = (block_m // thread_m) * (block_n // thread_n)
    if (block_m * block_k) % threads or (block_k * block_n) % threads:
        raise ValueError(f"the {threads} threads of a block must split both tiles evenly, got {sizes}")
    return threads


@lru_cache(maxsize=None)
def blocked_matmul_kernel(block_m: int, block_n: int, block_k: int, thread_m: int, thread_n: int, acc_type: Any) -> Any:
    """The register-blocked kernel for these sizes, accumulating in ``acc_type``.

    Launch with a 1-D block of :func:`check_blocking` threads and grid
    ``(ceil(m / block_n), ceil(n / block_m), batches)``; the arguments are the students'
    kernel's: ``batches, out, out_offset, out_shape, out_strides, a, a_offset, a_strides, b,
    b_offset, b_strides, k`` (operand strides expanded to ``out``'s batch dimensions).
    """
    threads = check_blocking(block_m, block_n, block_k, thread_m, thread_n)
    threads_m, threads_n = block_m // thread_m, block_n // thread_n
    a_loads, b_loads = block_m * block_k // threads, block_k * block_n // threads

    @cuda.jit
    def kernel(
        batches: int, out: Any, out_offset: int, out_shape: tuple, out_strides: tuple,
        a: Any, a_offset: int, a_strides: tuple, b: Any, b_offset: int, b_strides: tuple, k: int,
    ) -> None:
        a_tile = cuda.shared.array((block_k, block_m), acc_type)  # a's tile, transposed: a_tile[p, r]
        b_tile = cuda.shared.array((block_k, block_n), acc_type)
        acc = cuda.local.array((thread_m, thread_n), acc_type)
        a_column = cuda.local.array(thread_m, acc_type)
        b_row = cuda.local.array(thread_n, acc_type)
        rank = len(out_shape)
        n, m = out_shape[rank - 2], out_shape[rank - 1]
        a_row_step, a_k_step = a_strides[rank - 2], a_strides[rank - 1]
        b_k_step, b_col_step = b_strides[rank - 2], b_strides[rank - 1]
        out_row_step, out_col_step = out_strides[rank - 2], out_strides[rank - 1]
        thread = cuda.threadIdx.x
        thread_row, thread_col = thread // threads_n, thread % threads_n
        first_row, first_col = cuda.blockIdx.y * block_m, cuda.blockIdx.x * block_n
        for batch in range(cuda.blockIdx.z, batches, cuda.gridDim.z):
            a_pos, b_pos, out_pos = a_offset, b_offset, out_offset
            remaining = batch
            for d in range(rank - 3, -1, -1):
                at = remaining % out_shape[d]
                remaining //= out_shape[d]
                a_pos += at * a_strides[d]
                b_pos += at * b_strides[d]
                out_pos += at * out_strides[d]
            for x in range(thread_m):
                for y in range(thread_n):
                    acc[x, y] = 0
            for start in range(0, k, block_k):
                # stage the tiles: consecutive threads take consecutive elements along k of
                # a's rows and along a row of b (0 outside the matrices)
                for load in range(a_loads):
                    element = thread + load * threads
                    r, p = element // block_k, element % block_k
                    i, q = first_row + r, start + p
                    if i < n and q < k:
                        a_tile[p, r] = a[a_pos + i * a_row_step + q * a_k_step]
                    else:
                        a_tile[p, r] = 0
                for load in range(b_loads):
                    element = thread + load * threads
                    p, c = element // block_n, element % block_n
                    q, j = start + p, first_col + c
                    if q < k and j < m:
                        b_tile[p, c] = b[b_pos + q * b_k_step + j * b_col_step]
                    else:
                        b_tile[p, c] = 0
                cuda.syncthreads()
                for p in range(block_k):
                    for x in range(thread_m):
                        a_column[x] = a_tile[p, thread_row + x * threads_m]
                    for y in range(thread_n):
                        b_row[y] = b_tile[p, thread_col + y * threads_n]
                    for x in range(thread_m):
                        for y in range(thread_n):
                            acc[x, y] += a_column[x] * b_row[y]
                cuda.syncthreads()  # everyone is done with the tiles before they are overwritten
            for x in range(thread_m):
                i = first_row + thread_row + x * threads_m
                if i < n:
                    for y in range(thread_n):
                        j = first_col + thread_col + y * threads_n
                        if j < m:
                            out[out_pos + i * out_row_step + j * out_col_step] = acc[x, y]

    return kernel
