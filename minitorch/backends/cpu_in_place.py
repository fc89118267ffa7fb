"""In-place elementwise ops in the operand's own memory: ``x += y``, ``x *= 2``, ``x.exp_()``.

LLVM vectorises a loop ``out[j] = f(a[j], b[j])`` only behind a run-time test that ``out``
overlaps neither ``a`` nor ``b``, and runs its scalar loop when one does. An in-place op gives
the same memory as ``out`` and ``a``, so through the segment loops of :mod:`.cpu_kernels` it ran
scalar: ``W.add_(G)`` on 256 x 784 float32 took 50 us on 2 cores where the same loop into another
tensor took 26 us. The loops here read the operand through the output itself, a load and a store
of the same element in one iteration, which LLVM vectorises without a test (``b`` still gets one,
and a ``b`` that overlaps ``out`` still gets the scalar loop, element after element). Measured on
one thread, whole calls: ``W.add_(G)`` 88-92 us before, 31-37 us now; ``W.mul_(1.0)`` 70 us, 29 us.

The backend enters them only for an in-place call laid out as one run (``CpuBackend.zip`` and
``map``: the operand is the output, every operand row-major or dense alike, or a single
element), so a program compiles them for the ops it runs in place. Folding the same branches
into the segment loops, which every program compiles, made a small model's first training
step take about 2 s longer to compile.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange
from numba.core.dispatcher import Dispatcher

from ..tensor_data import TensorData
from . import kernel_cache, opcodes
from .cpu_kernels import (CHUNK, KERNEL_OPTIONS, binary_into, entry_point, kernel_only, launch, prange_only, serial_twin,
                          unary_into)
from .opcodes import code_of

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)


@kernel_only(**KERNEL_OPTIONS)
def map_in_place_run(op: int, out: np.ndarray, start: int, n: int) -> None:
    """``out[start + j] = op(out[start + j])`` for ``j < n``."""
    part = out[start : start + n]
    for j in range(n):
        unary_into(op, part[j], part, j)


@kernel_only(**KERNEL_OPTIONS)
def zip_in_place_run(op: int, out: np.ndarray, b: np.ndarray, b_step: int, start: int, n: int) -> None:
    """``out[start + j] = op(out[start + j], b[(start + j) * b_step])`` for ``j < n``, ``b_step`` 1 or 0."""
    part = out[start : start + n]
    if b_step == 1:
        b_part = b[start : start + n]
        for j in range(n):
            binary_into(op, part[j], b_part[j], part, j)
    else:
        y = b[0]
        for j in range(n):
            binary_into(op, part[j], y, part, j)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def map_in_place_kernel(op: int, out: np.ndarray, n: int) -> None:
    """``out[i] = op(out[i])`` for ``i < n``, a task per chunk of ``CHUNK`` elements."""
    for task in prange((n + CHUNK - 1) // CHUNK):
        start = np.int64(task) * CHUNK
        map_in_place_run(op, out, start, min(CHUNK, n - start))


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def zip_in_place_kernel(op: int, out: np.ndarray, b: np.ndarray, b_step: int, n: int) -> None:
    """``out[i] = op(out[i], b[i * b_step])`` for ``i < n``, a task per chunk of ``CHUNK`` elements."""
    for task in prange((n + CHUNK - 1) // CHUNK):
        start = np.int64(task) * CHUNK
        zip_in_place_run(op, out, b, b_step, start, min(CHUNK, n - start))


#: the kernels above without threads, for small tensors (see :func:`.cpu_kernels.serial_twin`)
map_in_place_kernel_serial = serial_twin(map_in_place_kernel, **KERNEL_OPTIONS)
zip_in_place_kernel_serial = serial_twin(zip_in_place_kernel, **KERNEL_OPTIONS)


# one compiled entry point per op and twin, as :func:`.cpu_kernels.map_entry` makes them


@functools.lru_cache(maxsize=None)
def map_in_place_entry(op: int, parallel: bool) -> Dispatcher:
    """:func:`map_in_place_kernel` (or its serial twin) for op code ``op``: ``(out, n)``."""
    if parallel:
        def kernel(out, n):  # type: ignore[no-untyped-def]
            map_in_place_kernel(op, out, n)
    else:
        def kernel(out, n):  # type: ignore[no-untyped-def]
            map_in_place_kernel_serial(op, out, n)
    return entry_point(kernel, f"map_in_place_{opcodes.UNARY[op]}{'_threaded' * parallel}")


@functools.lru_cache(maxsize=None)
def zip_in_place_entry(op: int, parallel: bool) -> Dispatcher:
    """:func:`zip_in_place_kernel` (or its serial twin) for op code ``op``: ``(out, b, b_step, n)``."""
    if parallel:
        def kernel(out, b, b_step, n):  # type: ignore[no-untyped-def]
            zip_in_place_kernel(op, out, b, b_step, n)
    else:
        def kernel(out, b, b_step, n):  # type: ignore[no-untyped-def]
            zip_in_place_kernel_serial(op, out, b, b_step, n)
    return entry_point(kernel, f"zip_in_place_{opcodes.BINARY[op]}{'_threaded' * parallel}")


def writes_its_operand(out: TensorData, a: TensorData) -> bool:
    """Whether ``a`` is ``out`` itself: the same storage from the same first element (the caller
    checks that the layouts are one run alike)."""
    return a.storage is out.storage and a.offset == out.offset


def map_in_place(op: str, out: TensorData) -> None:
    """``out = op(out)``, ``out`` one run (row-major or dense) of a dtype the kernels take as it is."""
    code = code_of(opcodes.UNARY_CODES, op)
    launch(out.size, map_in_place_entry(code, True), map_in_place_entry(code, False), out.buffer, out.size)


def zip_in_place(op: str, out: TensorData, b: TensorData, b_step: int) -> None:
    """``out = op(out, b)``, ``out`` one run and ``b`` laid out alike (``b_step`` 1) or one element (0)."""
    code = code_of(opcodes.BINARY_CODES, op)
    launch(out.size, zip_in_place_entry(code, True), zip_in_place_entry(code, False),
           out.buffer, b.buffer, b_step, out.size)
