"""Numba kernels of the CPU backend.

Every kernel here is a module-level ``@njit(cache=True)`` function, so a fresh process
loads the compiled code from Numba's on-disk cache instead of compiling it again. The
scalar operation is picked by an integer *op code* (from :mod:`.opcodes`, the table every
backend shares), never by passing a function: a kernel that takes or closes over a function
is never found in the cache.

How the pieces fit (``zip`` as the example; ``map`` is the same with one operand):

* :func:`.opcodes.binary_into` is the table of ops: ``out[pos] = op(x, y)`` by an
  ``if``/``elif`` chain on the op code. Inside the kernels the op code is a compile-time
  constant, and only its own branch is compiled (the overloads below): each op gets a
  tight loop of its own, which LLVM vectorises;
* :func:`zip_run` applies one op along a *segment*: ``n`` elements, each operand walked
  with its own step from its own start; unit steps (and step 0, a broadcast number) get
  loops over slices, which LLVM turns into SIMD code;
* :func:`zip_kernel` cuts the tensor into tasks, each one segment (the trailing
  dimensions merged as far as the strides allow, long segments split into chunks), and
  :func:`zip_task` runs one of them;
* :func:`zip_entry` gives the backend one compiled kernel per op (the op code closed over,
  so a constant), compiled the first time the op runs: a program compiles the ops it uses,
  a second or two each, not the whole table (a fresh process's first small training step
  took 233 s with every op compiled into every kernel; see below for today's figures).

The kernels loop over their tasks with ``prange`` (threads share them), and apart from
``prange`` they use no parallel features: no array expression may start threads unasked.
Each kernel also has a *serial twin* (:func:`serial_twin`), the same source compiled
without threads, which the backend calls below ``PARALLEL_MIN_WORK`` elements: waking the
thread pool costs microseconds on an idle machine and far more on a busy one, and compiling
a ``prange`` loop costs about a second per kernel, which a small model then never pays. The
work of a task lives in a function of its own, which the loop calls once.

Compile time also decides which functions are inlined (``inline="always"``: Numba copies
the callee's code into the caller before typing it). Every other ``@njit`` function called
from a kernel is compiled into a library of its own, and each caller links in its callees'
libraries and then optimises and compiles the whole of it again; with the op code a
constant, that is once per op at every level. So the small functions between an entry
point and the loops are inlined: the tasks (:func:`zip_task`, :func:`reduce_cell`, ...) into
their kernels, and the serial twins into their entry points. The segment loops
(:func:`zip_run`, ...) are not: they are the code LLVM works hardest on, and compiled once
per op and dtype they are linked into both twins of a kernel. A kernel has a single loop
over its tasks, whichever twin it is compiled as, so no task is compiled twice in one
kernel. Measured on the first training step of a small MLP in a fresh process, with an
empty cache, in runs taken one after the other:

* every function compiled on its own, each kernel with a serial and a ``prange`` loop
  (the kernel deciding by the tensor's size): 60 s and 60 s;
* the tasks and serial twins inlined: 49 s and 49 s (47 s and 46 s in a later pair);
* and a single loop per kernel (this file): 40 s and 43 s, beside that pair; with the
  segment loops inlined too, no faster (38 s and 41 s) and Numba warns about its own IR.

The first and the last layouts side by side, in alternating runs: 67 s, 67 s against 42 s,
32 s (Numba's compile events: 104 before, 72 now). What is left is LLVM's work on each
op's loops, about a second per op for the segment loop and as much again for the entry
point that links it in.

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

The blocked matrix product (course task 3.3) has a file of its own, :mod:`.cpu_matmul`.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
from numba import literally, njit, prange, types
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher
from numba.extending import overload

from . import kernel_cache, op_branches, opcodes, vector_math
from .cpu_thread_governor import governed
from .serial_twins import serial_only, serial_twin

# every kernel here is cached stamped with the op table too (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: below this many elements (multiply-adds for matmul) a kernel runs on the calling thread
PARALLEL_MIN_WORK = 1 << 16
#: a segment longer than this is split into chunks of this many elements, one task each
CHUNK = 1 << 14
#: a reduction along a dimension that is not the innermost one sweeps the reduced
#: dimension once per chunk of this many neighbouring output cells: their float64
#: accumulators (32 KiB) stay in L1 while long contiguous stretches stream in (measured on a
#: 4096 x 4096 sum over dim 0: 1024 -> 13.6 ms, 2048 -> 7.1 ms, 4096 -> 4.6 ms)
REDUCE_BLOCK = 4096
# ``error_model="numpy"``: IEEE results (inf, nan) for a zero divisor, no ZeroDivisionError
SCALAR_OPTIONS = {"error_model": "numpy"}
KERNEL_OPTIONS = {"cache": True, **SCALAR_OPTIONS}
# sums may be reordered (split over SIMD lanes); NaN and inf keep their meaning
REDUCE_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"reassoc"}}
# for a function that only other kernels call: Numba then generates no wrapper to call it from
# Python (unboxing each argument) or as a C callback, about a tenth of its compile time
INTERNAL_OPTIONS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


class KernelOnlyDispatcher(CPUDispatcher):
    """A function compiled with :data:`INTERNAL_OPTIONS`, which only other kernels may call.

    Numba still lets Python call it, and then jumps to the wrapper that was never compiled:
    the interpreter dies. Called from Python, this one raises instead.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.py_func.__name__} runs only inside other kernels: it is compiled without a Python entry point"
        )


def kernel_only(**options: Any) -> Callable[[Callable[..., Any]], Dispatcher]:
    """``@njit(**options)`` for a function only kernels call: no wrappers, and no call from Python."""

    def decorate(function: Callable[..., Any]) -> Dispatcher:
        dispatcher = njit(**options, **INTERNAL_OPTIONS)(function)
        dispatcher.__class__ = KernelOnlyDispatcher  # the same object, only its Python call refused
        return dispatcher

    return decorate


def prange_only() -> dict[str, bool]:
    """``parallel=`` options with ``prange`` as the only parallel feature.

    A fresh dict for each kernel: Numba empties the one it is given.
    """
    return {
        "prange": True, "comprehension": False, "reduction": False, "inplace_binop": False,
        "setitem": False, "numpy": False, "stencil": False, "fusion": False,
    }


# ---- the ops of :mod:`.opcodes` inside the kernels: one branch of the chain per op code ----
#
# The kernels call the chains of :mod:`.opcodes` by name; these overloads are what Numba
# compiles for them (their parameters, annotations included, must be the chains'). With a compile-time constant op code (every kernel below is entered
# through a per-op entry point, see the end of this file) only the op's own branch is
# compiled (:func:`.op_branches.branch`): a tight loop of its own that LLVM vectorises, and a
# tenth of the compile time of the whole chain. A run-time op code gets the whole chain.


def _branch_or_chain(chain: Callable[..., Any], op: Any) -> Callable[..., Any]:
    """The implementation Numba compiles for ``chain(op, ...)``, given the type of ``op``."""
    if isinstance(op, types.IntegerLiteral):
        return op_branches.branch(chain, op.literal_value)
    return chain


#: the float32 ops with a vectorisable body of their own (:mod:`.vector_math`) in place of the
#: C library's scalar function
VECTOR_FLOAT32 = {
    opcodes.EXP: vector_math.exp32,
    opcodes.LOG: vector_math.log32,
    opcodes.TANH: vector_math.tanh32,
    opcodes.SIGMOID: vector_math.sigmoid32,
    opcodes.ERF: vector_math.erf32,
}


def _vector_body(op: Any, x: Any) -> Dispatcher | None:
    """The :mod:`.vector_math` body of ``unary_into(op, x, ...)``, if it has one for these types."""
    if isinstance(op, types.IntegerLiteral) and x == types.float32:
        return VECTOR_FLOAT32.get(op.literal_value)
    return None


# Numba tries the overloads of a function in the order they are registered (each with a literal
# op code first): this one takes the ops of :data:`VECTOR_FLOAT32` on float32, the next one the
# rest. It is a function of its own, like every op's branch, which LLVM inlines into the loop
# before it vectorises it. (Inlined by Numba instead, ``inline="always"``, the loop around it
# was not vectorised in its own library, which is the code that a process compiling the kernel
# runs: see ``test_each_segment_loop_is_vectorised_in_its_own_compiled_code``.)
#
# Its multiply-adds may be fused (``contract``): on a CPU with FMA instructions each
# ``a * b + c`` of the polynomials is one instruction with one rounding, where the plain-Python
# bodies round twice. The results stay within the promised ulps either way; they equal the
# plain-Python bodies bit for bit on a CPU without FMA (see ``tests/test_vector_math.py``).
VECTOR_OPTIONS = {**SCALAR_OPTIONS, "fastmath": {"contract"}}


@overload(opcodes.unary_into, target="cpu", prefer_literal=True, jit_options={**VECTOR_OPTIONS, **INTERNAL_OPTIONS})
def _vector_unary_into(op: int, x: Any, out: Any, pos: int) -> Callable[..., Any] | None:
    body = _vector_body(op, x)
    if body is None:
        return None

    def vector_unary_into(op: int, x: Any, out: Any, pos: int) -> None:
        out[pos] = body(x)

    return vector_unary_into


@overload(opcodes.unary_into, target="cpu", prefer_literal=True, jit_options={**SCALAR_OPTIONS, **INTERNAL_OPTIONS})
def _unary_into(op: int, x: Any, out: Any, pos: int) -> Callable[..., Any]:
    return _branch_or_chain(opcodes.unary_into, op)


@overload(opcodes.binary_into, target="cpu", prefer_literal=True, jit_options={**SCALAR_OPTIONS, **INTERNAL_OPTIONS})
def _binary_into(op: int, x: Any, y: Any, out: Any, pos: int) -> Callable[..., Any]:
    return _branch_or_chain(opcodes.binary_into, op)


# inlined into the loop before lowering, so its sum is compiled with the loop's ``reassoc``
# and LLVM can split it over SIMD lanes
@overload(opcodes.reduce_step, target="cpu", prefer_literal=True, inline="always", jit_options=SCALAR_OPTIONS)
def _reduce_step(op: int, acc: Any, x: Any) -> Callable[..., Any]:
    return _branch_or_chain(opcodes.reduce_step, op)


@overload(opcodes.is_better, target="cpu", prefer_literal=True, inline="always", jit_options=SCALAR_OPTIONS)
def _is_better(op: int, x: Any, best: Any) -> Callable[..., Any]:
    return _branch_or_chain(opcodes.is_better, op)


unary_into, binary_into, reduce_step, is_better = (
    opcodes.unary_into, opcodes.binary_into, opcodes.reduce_step, opcodes.is_better
)


# ---- segments: one op along n elements, each operand with its own start and step ----


@kernel_only(**KERNEL_OPTIONS)
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


@kernel_only(**KERNEL_OPTIONS)
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


@kernel_only(**REDUCE_OPTIONS)
def reduce_run(op: int, acc, run: np.ndarray):
    """``acc`` combined in turn with each element of the contiguous ``run``."""
    if op == opcodes.MAX or op == opcodes.MIN:
        return extreme_run(op, acc, run)
    for r in range(run.size):
        acc = reduce_step(op, acc, run[r])
    return acc


@kernel_only(**KERNEL_OPTIONS)
def extreme_run(op: int, acc, run: np.ndarray):
    """:func:`reduce_run` for ``max``/``min`` (a NaN anywhere wins), folded in eight chains side by side.

    A sum is summed in SIMD lanes; a max is not (its NaN rule keeps LLVM from it), and in one
    chain each step waits for the compare before it: 1.08 ms for 1e6 float32, 0.24 ms in eight
    chains that the CPU runs at once (measured on the reference machine). Max and min are two
    compilations of :func:`extreme_chains`: with the choice a run-time flag, every step would
    test it (0.39 ms).
    """
    if op == opcodes.MAX:
        return extreme_chains(True, acc, run)
    return extreme_chains(False, acc, run)


@kernel_only(**KERNEL_OPTIONS)
def extreme_chains(is_max: bool, acc, run: np.ndarray):
    """``acc`` combined with every element of ``run`` by max (``is_max``) or min, compiled for
    each value of ``is_max`` (``literally``); runs of 16 or more in eight chains."""
    literally(is_max)
    whole = run.size - run.size % 8 if run.size >= 16 else 0
    if whole:
        m0, m1, m2, m3, m4, m5, m6, m7 = run[0], run[1], run[2], run[3], run[4], run[5], run[6], run[7]
        for j in range(8, whole, 8):
            m0 = extreme_step(is_max, m0, run[j])
            m1 = extreme_step(is_max, m1, run[j + 1])
            m2 = extreme_step(is_max, m2, run[j + 2])
            m3 = extreme_step(is_max, m3, run[j + 3])
            m4 = extreme_step(is_max, m4, run[j + 4])
            m5 = extreme_step(is_max, m5, run[j + 5])
            m6 = extreme_step(is_max, m6, run[j + 6])
            m7 = extreme_step(is_max, m7, run[j + 7])
        for lane in (m0, m1, m2, m3, m4, m5, m6, m7):
            acc = extreme_step(is_max, acc, lane)
    for r in range(whole, run.size):
        acc = extreme_step(is_max, acc, run[r])
    return acc


@kernel_only(**KERNEL_OPTIONS)
def extreme_step(is_max: bool, acc, x):
    """:func:`.opcodes.reduce_step` for ``max`` (``is_max``) or ``min``, a NaN winning: a plain
    function, which LLVM inlines, for the eight chains of :func:`extreme_chains` (inlining the
    overloaded ``reduce_step`` there, Numba reports variables out of scope)."""
    if is_max:
        return acc if (acc > x or acc != acc) else x
    return acc if (acc < x or acc != acc) else x


@kernel_only(**REDUCE_OPTIONS)
def reduce_rows(op: int, acc: np.ndarray, a: np.ndarray, start: int, row_step: int, rows: int) -> None:
    """``acc[j] = op(acc[j], a[start + r * row_step + j])`` for each row ``r`` in turn."""
    for r in range(rows):
        row = a[start + r * row_step : start + r * row_step + acc.size]
        for j in range(acc.size):
            acc[j] = reduce_step(op, acc[j], row[j])


# ---- index helpers ----


@kernel_only(**KERNEL_OPTIONS)
def count(shape: np.ndarray, skip: int = -1) -> int:
    """Number of elements of ``shape``, leaving out dimension ``skip`` if given."""
    size = 1
    for d in range(shape.size):
        if d != skip:
            size *= shape[d]
    return size


@njit(inline="always", **KERNEL_OPTIONS)
def matrix_offsets(matrix: int, shape: np.ndarray, a_strides: np.ndarray, b_strides: np.ndarray,
                   out_strides: np.ndarray) -> tuple[int, int, int]:
    """Where matrix number ``matrix`` of a batched product starts in ``a``, ``b`` and ``out``: its
    index in the batch dimensions of ``shape`` (all but the last two, row-major) times each
    operand's strides (0 along a dimension it is broadcast in)."""
    remaining = matrix
    a_base = 0
    b_base = 0
    out_base = 0
    for d in range(shape.size - 3, -1, -1):
        index = remaining % shape[d]
        remaining //= shape[d]
        a_base += index * a_strides[d]
        b_base += index * b_strides[d]
        out_base += index * out_strides[d]
    return a_base, b_base, out_base


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


# ---- kernels: the tasks, and the loops over them ----
#
# A ``prange`` index is an unsigned integer; Numba turns unsigned mixed with signed into
# float64, so it is passed on as ``np.int64(task)`` (the task's index arithmetic stays integer).
# The task functions are inlined into their kernels (see the module docstring).


@njit(inline="always", **KERNEL_OPTIONS)
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
    map_run(op, out, out_pos, out_strides[last], a, a_pos, a_strides[last], min(CHUNK, width - j))
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
    for task in prange(tasks):
        map_task(np.int64(task), chunks, width, inner, op, out, shape, out_strides, a, a_strides)
    # END SOLUTION


@njit(inline="always", **KERNEL_OPTIONS)
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
    zip_run(
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
    for task in prange(tasks):
        zip_task(np.int64(task), chunks, width, inner, op, out, shape, out_strides, a, a_strides, b, b_strides)
    # END SOLUTION


@njit(inline="always", **REDUCE_OPTIONS)
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
    out[out_pos] = reduce_run(op, acc, a[a_pos + first : a_pos + length])
    # END SOLUTION


@njit(inline="always", **REDUCE_OPTIONS)
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
    reduce_rows(op, totals, a, a_pos + j0 + first * step, step, length - first)
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
    if dim == last:
        for cell in prange(cells):
            reduce_cell(np.int64(cell), op, out, out_strides, a, shape, a_strides, start)
    elif cells > 0:
        chunks = (shape[last] + REDUCE_BLOCK - 1) // REDUCE_BLOCK
        tasks = (cells // shape[last]) * chunks
        acc = np.full(cells, start)  # one accumulator per output cell, in row-major order
        for task in prange(tasks):
            reduce_chunk(np.int64(task), chunks, acc, op, out, out_strides, a, shape, a_strides, dim)
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
    for cell in prange(count(shape, dim)):
        arg_reduce_cell(np.int64(cell), op, out, out_strides, a, shape, a_strides, dim)
    # END SOLUTION


# ---- serial twins: the kernels compiled without threads, for small tensors ----
#
# A ``prange`` loop costs about a second of compile time per kernel (Numba outlines it into a
# function of its own and compiles the thread pool's glue), and waking the threads costs
# microseconds per call. So each kernel also has a serial twin: the same source compiled
# without ``parallel``, where ``prange`` is plain ``range``. The backend calls the twin below
# ``PARALLEL_MIN_WORK`` (:func:`threaded`), so a small model never compiles a ``prange``. A
# twin is inlined into its entry point (one call site: one library less per op).


map_kernel_serial = serial_twin(map_kernel, **KERNEL_OPTIONS)
zip_kernel_serial = serial_twin(zip_kernel, **KERNEL_OPTIONS)
reduce_kernel_serial = serial_twin(reduce_kernel, **REDUCE_OPTIONS)
arg_reduce_kernel_serial = serial_twin(arg_reduce_kernel, **KERNEL_OPTIONS)


def threaded(work: int) -> bool:
    """Whether a kernel call with ``work`` elements (multiply-adds) goes to the threaded kernel
    (never in a forked child of a process that ran threads: see :mod:`.serial_twins`)."""
    return work >= PARALLEL_MIN_WORK and not serial_only()


def launch(work: int, kernel: Dispatcher, serial: Dispatcher, *args: Any) -> Any:
    """``serial(*args)`` below :data:`PARALLEL_MIN_WORK`, else ``kernel(*args)`` on the threads
    the thread governor allows (:mod:`.cpu_thread_governor`)."""
    if not threaded(work):
        return serial(*args)
    return governed(work, kernel, *args)


# ---- entry points: one compiled kernel per op, the first time that op runs ----
#
# Each entry point is a closure over its op code, which Numba compiles in as a constant: the
# kernel it calls is then compiled for that op alone (its branch of the chain, see above), and
# only for the ops a program uses. Numba's cache keys a closure on the values it closes over,
# so each op's kernel is cached apart; the names (``zip_add``, ``map_exp_threaded``) name the
# files. A closure over a kernel (a dispatcher) would never be found in the cache, so the
# threaded and serial entry points are two functions, each naming its kernel.


def entry_point(kernel: Callable[..., Any], name: str) -> Dispatcher:
    kernel.__name__ = kernel.__qualname__ = name
    return njit(**KERNEL_OPTIONS)(kernel)


@functools.lru_cache(maxsize=None)
def map_entry(op: int, parallel: bool) -> Dispatcher:
    """:func:`map_kernel` (or its serial twin) for op code ``op``: ``(out, shape, out_strides, a, a_strides)``."""
    if parallel:
        def kernel(out, shape, out_strides, a, a_strides):  # type: ignore[no-untyped-def]
            map_kernel(op, out, shape, out_strides, a, a_strides)
    else:
        def kernel(out, shape, out_strides, a, a_strides):  # type: ignore[no-untyped-def]
            map_kernel_serial(op, out, shape, out_strides, a, a_strides)
    return entry_point(kernel, f"map_{opcodes.UNARY[op]}{_THREADED * parallel}")


@functools.lru_cache(maxsize=None)
def zip_entry(op: int, parallel: bool) -> Dispatcher:
    """:func:`zip_kernel` (or its serial twin) for op code ``op``: ``(out, shape, out_strides, a, a_strides, b, b_strides)``."""
    if parallel:
        def kernel(out, shape, out_strides, a, a_strides, b, b_strides):  # type: ignore[no-untyped-def]
            zip_kernel(op, out, shape, out_strides, a, a_strides, b, b_strides)
    else:
        def kernel(out, shape, out_strides, a, a_strides, b, b_strides):  # type: ignore[no-untyped-def]
            zip_kernel_serial(op, out, shape, out_strides, a, a_strides, b, b_strides)
    return entry_point(kernel, f"zip_{opcodes.BINARY[op]}{_THREADED * parallel}")


# One run, serial: the layout of most small ops (every operand row-major like ``out``, or a
# single element read at every position). The general entry points above take the shape and
# each operand's strides as arrays; here those are two integers per operand, and converting a
# Python call's arguments is most of a small op's kernel time (8x8 ``a + b``: 0.35 us
# here, 0.56 us through :func:`zip_entry`).


@functools.lru_cache(maxsize=None)
def map_flat_entry(op: int) -> Dispatcher:
    """:func:`map_run` from position 0 for op code ``op``: ``(out, a, a_step, n)``, ``a_step`` 1 or 0."""
    def kernel(out, a, a_step, n):  # type: ignore[no-untyped-def]
        map_run(op, out, 0, 1, a, 0, a_step, n)
    return entry_point(kernel, f"map_flat_{opcodes.UNARY[op]}")


@functools.lru_cache(maxsize=None)
def zip_flat_entry(op: int) -> Dispatcher:
    """:func:`zip_run` from position 0 for op code ``op``: ``(out, a, a_step, b, b_step, n)``, each step 1 or 0."""
    def kernel(out, a, a_step, b, b_step, n):  # type: ignore[no-untyped-def]
        zip_run(op, out, 0, 1, a, 0, a_step, b, 0, b_step, n)
    return entry_point(kernel, f"zip_flat_{opcodes.BINARY[op]}")


# Rows, serial: a broadcast or a strided operand whose layout, merged (:mod:`.coalesce`), is two
# dimensions: a column added to a matrix, a row to each of many, the transpose of a matrix.
# The integers of the layout are the arguments again, one pair of steps per operand.


@functools.lru_cache(maxsize=None)
def map_rows_entry(op: int) -> Dispatcher:
    """:func:`map_run` row by row of a row-major ``out`` of ``rows * cols`` elements for op code
    ``op``: ``(out, rows, cols, a, a_row, a_col)``, ``a``'s element ``(r, c)`` at ``r * a_row + c * a_col``."""
    def kernel(out, rows, cols, a, a_row, a_col):  # type: ignore[no-untyped-def]
        for r in range(rows):
            map_run(op, out, r * cols, 1, a, r * a_row, a_col, cols)
    return entry_point(kernel, f"map_rows_{opcodes.UNARY[op]}")


@functools.lru_cache(maxsize=None)
def zip_rows_entry(op: int) -> Dispatcher:
    """:func:`zip_run` row by row of a row-major ``out`` for op code ``op``:
    ``(out, rows, cols, a, a_row, a_col, b, b_row, b_col)``, as :func:`map_rows_entry`."""
    def kernel(out, rows, cols, a, a_row, a_col, b, b_row, b_col):  # type: ignore[no-untyped-def]
        for r in range(rows):
            zip_run(op, out, r * cols, 1, a, r * a_row, a_col, b, r * b_row, b_col, cols)
    return entry_point(kernel, f"zip_rows_{opcodes.BINARY[op]}")


@functools.lru_cache(maxsize=None)
def reduce_entry(op: int, parallel: bool) -> Dispatcher:
    """:func:`reduce_kernel` (or its serial twin) for op code ``op``: ``(out, out_strides, a, shape, a_strides, dim, start)``."""
    if parallel:
        def kernel(out, out_strides, a, shape, a_strides, dim, start):  # type: ignore[no-untyped-def]
            reduce_kernel(op, out, out_strides, a, shape, a_strides, dim, start)
    else:
        def kernel(out, out_strides, a, shape, a_strides, dim, start):  # type: ignore[no-untyped-def]
            reduce_kernel_serial(op, out, out_strides, a, shape, a_strides, dim, start)
    return entry_point(kernel, f"reduce_{opcodes.REDUCE[op]}{_THREADED * parallel}")


@functools.lru_cache(maxsize=None)
def arg_reduce_entry(op: int, parallel: bool) -> Dispatcher:
    """:func:`arg_reduce_kernel` (or its serial twin) for op code ``op``: ``(out, out_strides, a, shape, a_strides, dim)``."""
    if parallel:
        def kernel(out, out_strides, a, shape, a_strides, dim):  # type: ignore[no-untyped-def]
            arg_reduce_kernel(op, out, out_strides, a, shape, a_strides, dim)
    else:
        def kernel(out, out_strides, a, shape, a_strides, dim):  # type: ignore[no-untyped-def]
            arg_reduce_kernel_serial(op, out, out_strides, a, shape, a_strides, dim)
    return entry_point(kernel, f"{opcodes.ARG_REDUCE[op]}{_THREADED * parallel}")


_THREADED = "_threaded"
