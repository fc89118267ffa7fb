r"""Log-softmax along the rows in one kernel launch: the cuda backend's ``Backend.log_softmax``.

.. math:: \mathrm{out}_{ij} = (a_{ij} - m_i) - \log \sum_k e^{a_{ik} - m_i},\qquad m_i = \max_k a_{ik}

From the primitives (:func:`.base.log_softmax_by_primitives`) this is six launches and two
temporaries on the device: a max, a subtraction, an exponential, a sum, a logarithm and a second
subtraction. Here one block per row does all six with its threads: the row's max and then its sum
of exponentials are folded and combined exactly as :func:`.cuda_kernels.reduce_kernel` folds and
combines them (each thread every ``threads``-th element, then a tree in shared memory,
accumulating in float64), and every other step is rounded to the row's dtype where the
primitives store it. The results are the primitives' bit for bit.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from numba import cuda

from . import opcodes
from .cuda_kernels import reduce_step

MAX = opcodes.MAX
SUM = opcodes.SUM


@cuda.jit(device=True)
def combine(op: int, cache: Any, thread: int, threads: int, active: int) -> None:
    """The reduction kernel's tree: ``cache[t]`` takes in ``cache[t + half]`` while that one holds a value."""
    half = threads // 2
    while half > 0:
        if thread < half and thread + half < active:
            cache[thread] = reduce_step(op, cache[thread], cache[thread + half])
        cuda.syncthreads()
        half //= 2


@lru_cache(maxsize=None)
def log_softmax_kernel(max_threads: int, acc_type: Any, value_type: Any) -> Any:
    """The kernel for blocks of at most ``max_threads`` threads (a power of two), accumulating in
    ``acc_type`` and rounding to ``value_type`` (the rows' dtype, as Numba types).

    Launch with one block per row (grid-stride over the rest) of the power of two threads
    :func:`.cuda._power_of_two_at_least` gives the row's length. Kernel arguments: ``rows,
    width, out, out_offset, out_strides, a, a_offset, a_strides`` (2-D strides).
    """

    @cuda.jit
    def kernel(rows: int, width: int, out: Any, out_offset: int, out_strides: tuple,
               a: Any, a_offset: int, a_strides: tuple) -> None:
        cache = cuda.shared.array(max_threads, acc_type)
        thread, threads = cuda.threadIdx.x, cuda.blockDim.x
        active = min(width, threads)  # threads that hold a value
        a_step, out_step = a_strides[1], out_strides[1]
        for row in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
            a_start = a_offset + row * a_strides[0]
            out_start = out_offset + row * out_strides[0]
            if thread < active:  # the row's max
                acc = acc_type(a[a_start + thread * a_step])
                for j in range(thread + threads, width, threads):
                    acc = reduce_step(MAX, acc, a[a_start + j * a_step])
                cache[thread] = acc
            cuda.syncthreads()
            combine(MAX, cache, thread, threads, active)
            row_max = value_type(cache[0])
            cuda.syncthreads()  # all have read the max before the cache takes the sums
            if thread < active:  # the shifted row into out, and the sum of its exponentials
                shifted = value_type(a[a_start + thread * a_step] - row_max)
                out[out_start + thread * out_step] = shifted
                acc = acc_type(value_type(math.exp(shifted)))
                for j in range(thread + threads, width, threads):
                    shifted = value_type(a[a_start + j * a_step] - row_max)
                    out[out_start + j * out_step] = shifted
                    acc = reduce_step(SUM, acc, value_type(math.exp(shifted)))
                cache[thread] = acc
            cuda.syncthreads()
            combine(SUM, cache, thread, threads, active)
            log_total = value_type(math.log(value_type(cache[0])))
            cuda.syncthreads()  # all have read the sum before the next row's max is folded
            for j in range(thread, width, threads):
                out[out_start + j * out_step] = out[out_start + j * out_step] - log_total

    return kernel
