"""The CPU backend: compiled Numba kernels (in :mod:`.cpu_kernels`) over strided storage.

This module is the thin Python side: it turns op names into op codes and views' shapes and
strides into int64 arrays, broadcasts operand strides to ``out``'s shape, and hands the
kernels layouts they are fast on (a contiguous last dimension for a reduction). Three dtype
details live here too:

* ``copy`` into another dtype (``.to(dtype)``) is NumPy's cast (:func:`_cast`);
* Numba has no float16 or bfloat16 arithmetic, so operands of these 16-bit floats
  (:func:`.dtypes.is_low_precision`) are widened to float32 copies and a 16-bit ``out`` is
  computed in float32 and rounded into place (:func:`_through_float32`), as PyTorch's CPU
  kernels do for both (and NumPy for half precision);
* bool inputs are read as uint8 (the same bytes), so every op has integer arithmetic to
  compile to; a bool ``out`` stays bool, so a result stored into it becomes ``x != 0``.

An elementwise op on strided views (``contiguous()`` of a permute or of a convolution's windows,
a bias added to a crop) walks them row by row (:mod:`.cpu_walk`), where the students' kernels
would divide to find the start of every short run (see the note above :func:`_cast`).

Storages of 256 KiB or more come from :mod:`.cpu_memory`, which keeps freed ones for reuse
(fresh memory costs a page fault per page on its first write).

Reductions accumulate in float64 (float inputs) or int64 (integer and bool inputs) and round
once into ``out``: a float32 sum of 10^7 terms keeps its full precision, at no measurable
cost since summing is limited by memory bandwidth.

Matmul has four paths; ``CpuBackend.matmul`` picks one:

* **The Numba kernel** of task 3.3 (:mod:`.cpu_matmul`, run by :func:`numba_matmul`: blocked, packed, any strides and
  dtypes; at 1024 x 1024 float32 on 2 cores about half of BLAS) for integer and bool dtypes, for
  float16 and bfloat16 (through float32) and for the float products the next two kernels do not take. Tests
  and benchmarks of the students' kernel call :func:`numba_matmul` directly.
* **The small kernel** (:mod:`.cpu_matmul_small`, given to students, run by :func:`small_matmul`)
  for float32 and float64 products with too few multiply-adds for threads: one serial pass,
  cheap to set up and to compile (a small model's first training step compiles nothing else).
* **The outer-product kernel** (:mod:`.cpu_matmul_outer`, given to students, run by
  :func:`outer_matmul`) for larger float32 and float64 products with at least
  :data:`OUTER_MIN_COLS` columns (see :func:`outer_matmul_fits`): it vectorises along the rows of
  ``b`` and never adds SIMD lanes together, which makes the short inner dimensions of a training
  step's gradients two to three times faster and long ones about a fifth. A recurrent layer,
  which multiplies every step's state by the same ``W_hh``, packs it once (:class:`PackedRight`)
  and runs the same tiles from the packed copy at each step.
* **BLAS** (through ``np.matmul``, :func:`_blas_matmul`) for float32 and float64 products of
  at least ``BLAS_MIN_WORK`` multiply-adds, once :data:`use_blas` is set. In isolation it
  is ~3x faster than the kernel (sums in float32 for float32, as in PyTorch). It is off by
  default because OpenBLAS's threads keep spinning for milliseconds after each call, and
  on a machine with few cores they then starve the Numba threads of the next ops: measured
  on 2 cores, a 1M-element ``exp`` right after a BLAS matmul takes 7.8 ms instead of 1.2 ms,
  and an MLP training step (batch 256, 784-256-10) 36 ms instead of 2.8 ms with the kernel.
  With ``OPENBLAS_NUM_THREADS=1`` in the environment (set before NumPy is imported) BLAS
  has no such threads and wins (2.0 ms for that step). Views whose rows or columns are
  contiguous go to BLAS as they are; others are copied first, and a sliced ``out`` is
  computed apart and copied in (NumPy's matmul would run a slow loop of its own on them).
"""

from __future__ import annotations

import functools
from typing import Callable, Optional, Sequence

import numpy as np

from .. import dtypes
from ..memory_formats import is_non_overlapping_and_dense
from ..tensor_data import TensorData, contiguous_strides, expand_strides, strides_from_shape
from . import cpu_kernels as kernels
from . import cpu_in_place, cpu_matmul, cpu_mul_add, cpu_matmul_outer, cpu_matmul_small, cpu_memory, cpu_reduce_long, cpu_walk
from . import opcodes
from .base import AdamStep, ConvGeometry, PoolGeometry, SgdStep, reduce_has_work
from .coalesce import coalesce, coalesce_around, longest_innermost
from .cpu_thread_governor import governed
from .opcodes import code_of

_LOW = dtypes.LOW_PRECISION_NUMPY  # float16 and bfloat16: computed through float32
_BOOL = np.dtype(np.bool_)
#: the dtypes whose matmul goes to BLAS (through NumPy) while :data:`use_blas` is set
_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)
_BLAS_DTYPES = (_FLOAT32, _FLOAT64)

#: whether ``CpuBackend.matmul`` hands float32/float64 products to BLAS (see the module
#: docstring: worth it with ``OPENBLAS_NUM_THREADS=1``); otherwise every matmul runs on one of
#: the Numba kernels
use_blas = False
#: whether ``CpuBackend.matmul`` sends float products with wide outputs to the outer-product
#: kernel of :mod:`.cpu_matmul_outer` (see :func:`outer_matmul_fits`)
use_outer_kernel = True
#: whether ``CpuBackend.matmul`` sends float products with little work to the serial kernel of
#: :mod:`.cpu_matmul_small` (one float dtype, and too few multiply-adds for threads:
#: :func:`.cpu_kernels.threaded`)
use_small_kernel = True
#: whether ``CpuBackend.reduce`` sends a whole large tensor reduced to one value to the kernel of
#: :mod:`.cpu_reduce_long`, which cuts the run into parts for the threads (off: the students'
#: reduce kernel, where that single output cell is one task)
use_long_run_kernel = True
#: the fewest columns of ``out`` for the outer-product kernel: it computes tiles of
#: :data:`.cpu_matmul_outer.TILE_COLS` columns, so on narrower products most of its work is padding
OUTER_MIN_COLS = 32
#: when ``b``'s rows are not contiguous (``x @ W.T``), the outer-product kernel packs it by a
#: transposing copy that costs more than the dot products save on a long inner dimension and
#: few rows; it takes such products only with ``k <= OUTER_SHORT_K``, or ``k <= OUTER_LONG_K``
#: and at least ``OUTER_MIN_ROWS`` rows. Measured on 2 cores against the students' kernel:
#: ``64 x 784 @ (256 x 784).T`` 211 vs 246 us, ``32 x 1024 @ (32 x 1024).T`` 91 vs 43 us,
#: ``16 x 1024 @ (1024 x 1024).T`` 594 vs 435 us, ``128 x 512 @ (512 x 512).T`` 575 vs 543 us
OUTER_SHORT_K = 128
OUTER_LONG_K = 1024
OUTER_MIN_ROWS = 64
#: fewer multiply-adds than this go to the Numba kernel even with ``use_blas``: there the
#: call costs more than the work (measured, kernel vs BLAS: 8 x 8 x 8 1.9 vs 3.2 us,
#: 32 x 32 x 32 6.4 vs 3.8 us)
BLAS_MIN_WORK = 1 << 12
#: int64 arrays of the shapes and strides seen so far, by ``(shape, strides)``: a training
#: loop meets the same few layouts every step. Kernels only read these arrays.
_LAYOUTS: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[np.ndarray, np.ndarray]] = {}
#: forget them all past this many (a program that makes ever new shapes)
LAYOUT_CACHE_SIZE = 4096


def _layout(td: TensorData) -> tuple[np.ndarray, np.ndarray]:
    """``td``'s shape and strides as int64 arrays (made once per layout, then cached).

    A 0-d view reads as shape ``(1,)``: the kernels need at least one dimension.
    """
    key = (td.shape, td.strides)
    cached = _LAYOUTS.get(key)
    if cached is None:
        if len(_LAYOUTS) >= LAYOUT_CACHE_SIZE:
            _LAYOUTS.clear()
        shape, strides = key if td.dims else ((1,), (1,))
        cached = _LAYOUTS[key] = (np.array(shape, np.int64), np.array(strides, np.int64))
    return cached


#: broadcast strides by ``(shape, strides, out shape)``: a bias or a number added to the same shape every step
_BROADCASTS: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], np.ndarray] = {}


def _strides_in(a: TensorData, out: TensorData, out_strides: np.ndarray) -> np.ndarray:
    """``a``'s strides broadcast to ``out``'s shape (0 along broadcast dimensions), cached.

    ``out_strides`` (``out``'s own) is the answer for an operand laid out like ``out``.
    """
    if a.shape == out.shape:
        return out_strides if a.strides == out.strides else _layout(a)[1]
    key = (a.shape, a.strides, out.shape)
    strides = _BROADCASTS.get(key)
    if strides is None:
        if len(_BROADCASTS) >= LAYOUT_CACHE_SIZE:
            _BROADCASTS.clear()
        strides = _BROADCASTS[key] = np.array(expand_strides(a.shape, a.strides, out.shape), np.int64)
    return strides


#: the coalesced layouts of elementwise ops (:func:`_elementwise_layout`), by the operands' layouts
_COALESCED: dict[tuple, tuple[np.ndarray, ...]] = {}
#: elementwise ops on fewer dimensions than this take their layout as it is (unless their runs
#: are short): the kernel already merges a contiguous tensor's dimensions
COALESCE_MIN_DIMS = 3
#: an elementwise op whose innermost dimension is shorter than this runs along its longest
#: dimension instead (:func:`.coalesce.longest_innermost`). Measured on the backward of a
#: 2 x 2 max-pooling, ``(64, 6, 14, 14, 4)`` times a value per window: 9.4 ms as 75 264 runs of
#: 4 elements (most of it finding where each run starts), 0.6 ms as 4 runs of 75 264
SHORT_INNER = 16


def _elementwise_layout(out: TensorData, *operands: TensorData) -> tuple[np.ndarray, ...]:
    """The shape, ``out``'s strides and each operand's strides (broadcast to ``out``'s shape)
    that a map or zip kernel gets, cached per layout: from :data:`COALESCE_MIN_DIMS`
    dimensions on (or with a short innermost one), the mergeable dimensions merged
    (:func:`.coalesce.coalesce`) and the longest run innermost."""
    if out.dims < COALESCE_MIN_DIMS and (out.dims < 2 or out.shape[-1] >= SHORT_INNER):
        shape, out_strides = _layout(out)
        return (shape, out_strides, *[_strides_in(a, out, out_strides) for a in operands])
    key = (out.shape, out.strides, *[(a.shape, a.strides) for a in operands])
    found = _COALESCED.get(key)
    if found is None:
        if len(_COALESCED) >= LAYOUT_CACHE_SIZE:
            _COALESCED.clear()
        strides = [out.strides] + [
            a.strides if a.shape == out.shape else expand_strides(a.shape, a.strides, out.shape) for a in operands
        ]
        shape, merged = longest_innermost(*coalesce(out.shape, strides), SHORT_INNER)
        found = _COALESCED[key] = (np.array(shape, np.int64), *[np.array(s, np.int64) for s in merged])
    return found


#: the coalesced layouts of reductions (:func:`_coalesced_reduction`), by their uncoalesced layouts
_COALESCED_REDUCTIONS: dict[tuple[bytes, bytes, bytes, int], tuple[np.ndarray, np.ndarray, np.ndarray, int]] = {}


def _coalesced_reduction(shape: np.ndarray, a_strides: np.ndarray, out_strides: np.ndarray,
                         dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A reduction's layout with the dimensions on each side of ``dim`` merged where they can be
    (:func:`.coalesce.coalesce_around`): the kernel divides once per dimension to find each
    output cell, so a max-pooling's ``(64, 6, 14, 14, 4)`` reduced along the last dimension
    costs a quarter as much as ``(75264, 4)``. Cached per layout; from
    :data:`COALESCE_MIN_DIMS` dimensions on."""
    if shape.size < COALESCE_MIN_DIMS:
        return shape, a_strides, out_strides, dim
    key = (shape.tobytes(), a_strides.tobytes(), out_strides.tobytes(), dim)
    found = _COALESCED_REDUCTIONS.get(key)
    if found is None:
        if len(_COALESCED_REDUCTIONS) >= LAYOUT_CACHE_SIZE:
            _COALESCED_REDUCTIONS.clear()
        merged_shape, (merged_a, merged_out), merged_dim = coalesce_around(
            shape.tolist(), [a_strides.tolist(), out_strides.tolist()], dim)
        found = _COALESCED_REDUCTIONS[key] = (
            np.array(merged_shape, np.int64), np.array(merged_a, np.int64), np.array(merged_out, np.int64), merged_dim)
    return found


#: ``np.array([size])`` by ``size``: the shape of an elementwise op run as one run (:func:`_flat_layout`)
_FLAT_SHAPES: dict[int, np.ndarray] = {}
#: the stride of an operand laid out as the output in a one-run layout, and of a single element read everywhere
_UNIT_STRIDE = np.ones(1, np.int64)
_ZERO_STRIDE = np.zeros(1, np.int64)


def _flat_steps(out: TensorData, *operands: TensorData) -> Optional[tuple[int, ...]]:
    """Each operand's step (1 or 0) when the elementwise op is one run over ``out``: ``out``
    row-major or dense in another order (:func:`_dense`), each operand either laid out as ``out`` (step 1) or a single element read at
    every position (step 0, ``x * 2``); all of one NumPy dtype, neither a 16-bit float nor bool (which
    :func:`_operand` views as bytes). The common case of a small op, which skips the general
    layout's work. None otherwise."""
    shape, strides, dtype = out.shape, out.strides, out.storage.dtype
    steps = []
    for operand in operands:
        if operand.storage.dtype is not dtype:
            return None
        if operand.shape == shape and operand.strides == strides:
            steps.append(1)
        elif operand.size == 1:
            steps.append(0)
        else:
            return None
    if dtype in _LOW or dtype is _BOOL or (strides != contiguous_strides(shape) and not _dense(shape, strides)):
        return None
    return tuple(steps)


@functools.lru_cache(maxsize=1024)
def _dense(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether a layout fills a block of storage exactly once: row-major with its dimensions
    reordered (channels-last). Its elements then lie in the ``size`` positions from its first,
    so an op over operands of one such layout runs over that block as over a row-major one."""
    return is_non_overlapping_and_dense(shape, strides)


#: the two-dimensional layouts of :func:`_rows_steps` by the layouts they merge (None: more than two)
_ROWS: dict[tuple, Optional[tuple[int, ...]]] = {}


def _rows_steps(out: TensorData, *operands: TensorData) -> Optional[tuple[int, ...]]:
    """``(rows, cols, a_row, a_col, ...)`` when an elementwise op over a row-major ``out`` runs over
    two dimensions once its neighbouring dimensions are merged (:func:`.coalesce.coalesce`): a
    column or a row broadcast, a transposed operand. Each operand's steps along the two; all of
    one NumPy dtype, neither a 16-bit float nor bool (as :func:`_flat_steps`). None otherwise. Cached per layout."""
    dtype = out.storage.dtype
    if not out.dims or dtype in _LOW or dtype is _BOOL or out.strides != contiguous_strides(out.shape):
        return None
    for operand in operands:
        if operand.storage.dtype is not dtype:
            return None
    key = (out.shape, *[(a.shape, a.strides) for a in operands])
    if key in _ROWS:
        return _ROWS[key]
    if len(_ROWS) >= LAYOUT_CACHE_SIZE:
        _ROWS.clear()
    strides = [out.strides] + [a.strides if a.shape == out.shape else expand_strides(a.shape, a.strides, out.shape)
                               for a in operands]
    shape, merged = coalesce(out.shape, strides)
    if len(shape) == 1:  # one run after all (a strided operand): one row
        shape, merged = [1, *shape], [[0, *steps] for steps in merged]
    found = _ROWS[key] = None if len(shape) > 2 else (shape[0], shape[1], *[n for steps in merged[1:] for n in steps])
    return found


#: the flat entry points (:func:`.cpu_kernels.map_flat_entry`, ``zip_flat_entry``) by op name:
#: one dictionary read per small op, where the op code's lookup and the entry's cache are two calls
_MAP_FLAT: dict[str, Callable[..., None]] = {}
_ZIP_FLAT: dict[str, Callable[..., None]] = {}
#: the same for the two-dimensional layouts (:func:`.cpu_kernels.map_rows_entry`, ``zip_rows_entry``)
_MAP_ROWS: dict[str, Callable[..., None]] = {}
_ZIP_ROWS: dict[str, Callable[..., None]] = {}


def _flat_entry(entries: dict[str, Callable[..., None]], op: str, codes: dict[str, int],
                make: Callable[[int], Callable[..., None]]) -> Callable[..., None]:
    """The flat entry point of ``op`` (a ValueError for an op ``codes`` does not have), remembered in ``entries``."""
    entry = entries[op] = make(code_of(codes, op))
    return entry


def _flat_layout(out: TensorData, steps: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """``([size], [1], ...)``: the one run of :func:`_flat_steps` in the arrays of
    :func:`_elementwise_layout` (what the threaded kernels take)."""
    size = out.size
    flat_shape = _FLAT_SHAPES.get(size)
    if flat_shape is None:
        if len(_FLAT_SHAPES) >= LAYOUT_CACHE_SIZE:
            _FLAT_SHAPES.clear()
        flat_shape = _FLAT_SHAPES[size] = np.array([size], np.int64)
    return (flat_shape, _UNIT_STRIDE, *[_UNIT_STRIDE if step else _ZERO_STRIDE for step in steps])


def _matrix_strides(a: TensorData, batch: tuple[int, ...]) -> np.ndarray:
    """The strides of a stack of matrices, its batch dimensions broadcast to ``batch``."""
    if a.shape[:-2] == batch:
        return _layout(a)[1]
    return np.array(expand_strides(a.shape[:-2], a.strides[:-2], batch) + a.strides[-2:], np.int64)


def _operand(td: TensorData) -> np.ndarray:
    """The buffer a kernel reads: bool as uint8, so integer arithmetic compiles for it."""
    buffer = td.buffer
    return buffer.view(np.uint8) if buffer.dtype == _BOOL else buffer


#: an elementwise op on views whose rows (after :func:`.cpu_walk.walk_order`) are shorter than
#: this goes to :mod:`.cpu_walk`, longer ones to the students' kernels: past a thousand elements
#: a division per run costs next to nothing (see the note below for the measurements)
WALK_MAX_ROW = 1024


def _walk_layout(out: TensorData, *operands: TensorData) -> Optional[tuple[np.ndarray, np.ndarray, int]]:
    """``(shape, strides, parts)`` of a threaded elementwise op on views, as :mod:`.cpu_walk`'s
    kernels take them (:func:`.cpu_walk.walk_layout`, :func:`.cpu_walk.parts_for`), if its rows
    are short enough to go there (:data:`WALK_MAX_ROW`), else None."""
    shape, strides, _ = cpu_walk.walk_layout(out, *operands)
    if shape[-1] >= WALK_MAX_ROW:
        return None
    return shape, strides, cpu_walk.parts_for(out.size // int(shape[-1]))


# Which kernel runs an elementwise op (``map``, ``zip``; a copy, ``contiguous()``, is the map ``copy``):
#
# * NumPy's strided copy (:func:`_cast`) a copy into another dtype; one too small for the
#   threads (:func:`.cpu_kernels.threaded`): NumPy is as fast on a few elements and faster on
#   strided views (measured, kernel against NumPy: 8 x 8 2.3 against 3.0 us; a transposed
#   128 x 128 18.6 against 13.1 us, 255 x 255 55 against 22 us), and a small model then never
#   compiles a serial kernel (0.4 s of its first step); and one value into many (``fill_``,
#   ``zero_``, the padding of a convolution): a kernel reads its one value through a stride of
#   0, a loop that does not vectorise (64 x 6 x 28 x 28 float32: 119 us, NumPy 32 us);
# * the students' kernels (task 3.1) every other op too small for threads, every op whose
#   operands are laid out as ``out`` (one run: a 1024 x 1024 float32 copy 55 us, NumPy 95), and
#   ops on views whose rows are :data:`WALK_MAX_ROW` elements or longer;
# * :mod:`.cpu_walk` threaded ops on views with shorter rows (a permute, a crop, a convolution's
#   windows), walked in the order that reads and writes nearby memory in turn, each row's start
#   counted on from the one before where the students' kernels divide to find each run's start.
#   Measured on 2 threads, float32 (walk, students' kernel, NumPy): ``contiguous()`` of the
#   windows of a stride-2 transposed convolution's gradient, 524K elements in runs of 8 read
#   every second element, 0.23, 1.25 and 0.29 ms; of the 1.25M-element window view of a 5 x 5
#   convolution on 64 padded images of 28 x 28, 0.67, 2.2 and 2.1 ms; of a 64 x 28 x 28 x 16
#   permute, 0.28, 1.5 and 0.31 ms; of the 3 x 3 stride-2 windows of 64 x 16 x 32 x 32, 1.7, 2.9
#   and 3.8 ms; the sum of two permuted 64 x 16 x 28 x 28 images 0.33 and 1.5 ms; a bias added to
#   a crop of 16 x 32 x 18 x 18 0.05 and 0.18 ms.


def _cast(a: TensorData, out: TensorData) -> None:
    """``copy`` by NumPy's strided copy, broadcasting ``a``: into another dtype (how
    ``.to(dtype)`` works: a kernel would be compiled anew for each of the 30-odd pairs of
    dtypes), a copy too small for threads or one value into many (see the note above)."""
    source, target = a.numpy_view(), out.numpy_view()
    with np.errstate(invalid="ignore", over="ignore"):  # NaN or inf into an int, overflow into a 16-bit float
        target[...] = source.astype(np.float32) if dtypes.through_float32(source.dtype, target.dtype) else source


def _widened(td: TensorData) -> TensorData:
    """A contiguous float32 copy of a float16 or bfloat16 view."""
    return TensorData(td.numpy_view().astype(np.float32).reshape(-1), td.shape)


def _through_float32(method: Callable[..., None], *args: object) -> None:
    """Call ``method`` with float32 stand-ins for its float16 and bfloat16 views (Numba has neither).

    16-bit float inputs become float32 copies; a 16-bit float ``out`` (always the last argument) is
    computed into a float32 temporary and then rounded into place (to nearest even).
    """
    *inputs, out = args
    assert isinstance(out, TensorData)
    inputs = [_widened(x) if isinstance(x, TensorData) and x.storage.dtype in _LOW else x for x in inputs]
    if out.storage.dtype not in _LOW:
        method(*inputs, out)
        return
    temp = TensorData(np.empty(out.size, np.float32), out.shape)
    method(*inputs, temp)
    with np.errstate(over="ignore"):  # beyond the 16-bit range is inf, as a 16-bit op gives
        out.numpy_view()[...] = temp.storage.reshape(out.shape)


def _reduce_layout(
    a: TensorData, out: TensorData, dim: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """``a``'s buffer, shape and strides, ``out``'s strides and ``dim``, as the reduce kernel needs them.

    The kernel reads ``a`` along its last dimension, which must be contiguous. So the
    dimension with the smallest stride moves last (the same reordering for ``a`` and
    ``out`` changes nothing else; it keeps a transposed input cache-friendly), and if its
    stride is still not 1 (a sliced or expanded view) the kernel gets a contiguous copy.
    Returns ``(buffer, shape, a_strides, out_strides, dim)``.
    """
    shape, a_strides = _layout(a)
    out_strides = _layout(out)[1]
    if a.dims == 0 or a.size == 0 or (a.shape[-1] > 1 and a.strides[-1] == 1):
        return _operand(a), shape, a_strides, out_strides, dim
    spread = [(s if s != 0 else np.inf, d) for d, (n, s) in enumerate(zip(a.shape, a.strides)) if n > 1]
    if not spread:  # a single element
        return _operand(a), shape, a_strides, out_strides, dim
    inner = min(spread)[1]
    order = [d for d in range(a.dims) if d != inner] + [inner]
    if inner != a.dims - 1:
        shape, a_strides, out_strides, dim = shape[order], a_strides[order], out_strides[order], order.index(dim)
    if a.strides[inner] == 1:
        return _operand(a), shape, a_strides, out_strides, dim
    copy = np.ascontiguousarray(a.numpy_view().transpose(order))
    strides = np.array(strides_from_shape(copy.shape), np.int64)
    return _operand(TensorData(copy.reshape(-1), copy.shape)), shape, strides, out_strides, dim


def numba_matmul(a: TensorData, b: TensorData, out: TensorData) -> None:
    """``out = a @ b`` by the Numba kernel (:func:`.cpu_matmul.matmul_kernel`), for every dtype.

    ``a`` is ``(*batch_a, n, k)``, ``b`` ``(*batch_b, k, m)`` and ``out`` ``(*batch, n, m)``,
    the batch shapes broadcast to ``batch``. The kernel takes any strides, so the views go
    in as they are. This is the students' kernel (task 3.3) whatever :data:`use_blas` says:
    tests and benchmarks of that kernel call this function.
    """
    if out.size == 0:
        return
    if a.storage.dtype in _LOW or b.storage.dtype in _LOW or out.storage.dtype in _LOW:
        return _through_float32(numba_matmul, a, b, out)
    batch = out.shape[:-2]
    shape, out_strides = _layout(out)
    a_strides, b_strides = _matrix_strides(a, batch), _matrix_strides(b, batch)
    kernels.launch(out.size * a.shape[-1], cpu_matmul.matmul_kernel, cpu_matmul.matmul_kernel_serial,
                   out.buffer, shape, out_strides, _operand(a), a_strides, _operand(b), b_strides, a.shape[-1])


def _one_float_dtype(a: TensorData, b: TensorData, out: TensorData) -> bool:
    """Whether ``a``, ``b`` and ``out`` are all float32 or all float64: what BLAS and the
    outer-product and small kernels take."""
    dtype, a_dtype, b_dtype = out.storage.dtype, a.storage.dtype, b.storage.dtype
    if (dtype is _FLOAT32 or dtype is _FLOAT64) and a_dtype is dtype and b_dtype is dtype:
        return True  # NumPy's own dtype objects: the common case, compared by identity
    # an equal dtype may be another object (``np.dtype('<f4')``, as a loaded checkpoint's arrays
    # have): the same kernel must take it, or the same product would round differently
    return dtype in _BLAS_DTYPES and a_dtype == dtype and b_dtype == dtype


def outer_matmul_fits(a: TensorData, b: TensorData, out: TensorData) -> bool:
    """Whether :func:`outer_matmul` takes ``out = a @ b``: one float dtype, at least
    :data:`OUTER_MIN_COLS` columns, and an inner dimension of at most
    :data:`.cpu_matmul_outer.MAX_K`, or shorter where ``b`` has to be transposed to be packed
    (see :data:`OUTER_SHORT_K`)."""
    if out.shape[-1] < OUTER_MIN_COLS or not _one_float_dtype(a, b, out):
        return False
    k = a.shape[-1]
    if b.strides[-1] == 1:
        return k <= cpu_matmul_outer.MAX_K
    return k <= OUTER_SHORT_K or (k <= OUTER_LONG_K and out.shape[-2] >= OUTER_MIN_ROWS)


def small_matmul(a: TensorData, b: TensorData, out: TensorData) -> None:
    """``out = a @ b`` by the serial kernel of :mod:`.cpu_matmul_small` (operands as for
    :func:`numba_matmul`, float32 or float64)."""
    if out.dims == 2:
        (out_row, out_col), (a_row, a_col), (b_row, b_col) = out.strides, a.strides, b.strides
        n, m = out.shape
        return cpu_matmul_small.small_matrix_kernel(out.buffer, out_row, out_col, a.buffer, a_row, a_col,
                                                    b.buffer, b_row, b_col, n, a.shape[1], m)
    batch = out.shape[:-2]
    shape, out_strides = _layout(out)
    a_strides, b_strides = _matrix_strides(a, batch), _matrix_strides(b, batch)
    cpu_matmul_small.small_matmul_kernel(out.buffer, shape, out_strides, a.buffer, a_strides, b.buffer, b_strides, a.shape[-1])


def outer_matmul(a: TensorData, b: TensorData, out: TensorData) -> None:
    """``out = a @ b`` by the outer-product kernel of :mod:`.cpu_matmul_outer` (operands as for
    :func:`numba_matmul`, float32 or float64, ``k <= MAX_K``)."""
    batch = out.shape[:-2]
    shape, out_strides = _layout(out)
    a_strides, b_strides = _matrix_strides(a, batch), _matrix_strides(b, batch)
    kernels.launch(out.size * a.shape[-1], cpu_matmul_outer.outer_matmul_kernel, cpu_matmul_outer.outer_matmul_kernel_serial,
                   out.buffer, shape, out_strides, a.buffer, a_strides, b.buffer, b_strides, a.shape[-1])


class PackedRight:
    """``out = a @ b`` for one right operand ``b`` and many ``a``: a recurrent layer's steps, which
    multiply each step's state by the same weight. ``b``'s column tiles are packed once, where
    :func:`outer_matmul` packs them again at every call. Measured on 2 cores, float32, an LSTM's
    steps (hidden size 128, batch 32): ``(32, 128) @ (128, 512)`` 45 us instead of 63, and the
    backward's ``(32, 512) @ (512, 128)`` 43 us instead of the 91 that the students' kernel took
    (its ``b``, a transposed view, was not the outer kernel's). The products are
    :func:`outer_matmul`'s bit for bit.
    A call with another ``b``, or operands the packed kernel does not take (not one float dtype,
    not 2-D), goes to ``fallback``."""

    def __init__(self, b: TensorData, fallback: Callable[[TensorData, TensorData, TensorData], None]) -> None:
        self.b, self.fallback = b, fallback
        k, m = b.shape if b.dims == 2 else (0, 0)
        self.packed: Optional[np.ndarray] = None
        if b.dims == 2 and k <= cpu_matmul_outer.MAX_K and b.storage.dtype in _BLAS_DTYPES and m >= OUTER_MIN_COLS:
            tiles = -(-m // cpu_matmul_outer.TILE_COLS)
            self.packed = cpu_memory.empty(tiles * k * cpu_matmul_outer.TILE_COLS, b.storage.dtype)
            cpu_matmul_outer.pack_matrix(self.packed, b.buffer, b.strides[0], b.strides[1], k, m)

    def __call__(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        if (b is not self.b or self.packed is None or a.dims != 2 or out.dims != 2 or not _one_float_dtype(a, b, out)
                or a.shape[1] != b.shape[0] or out.shape != (a.shape[0], b.shape[1])):
            return self.fallback(a, b, out)
        (n, k), m = a.shape, b.shape[1]
        kernels.launch(n * m * k, cpu_matmul_outer.packed_matmul_kernel, cpu_matmul_outer.packed_matmul_kernel_serial,
                       out.buffer, out.strides[0], out.strides[1], a.buffer, a.strides[0], a.strides[1], self.packed, n, m, k)


def _blas_ready(view: np.ndarray) -> bool:
    """Whether BLAS reads the matrices of ``view`` in place.

    BLAS takes a matrix whose rows or whose columns are contiguous (the other step a
    positive multiple of the element size, at least a column or row long); for anything
    else NumPy's matmul falls back to a slow loop of its own.
    """
    item = view.itemsize
    rows, cols = view.shape[-2:]
    row_step, col_step = view.strides[-2:]
    if (col_step == item or cols == 1) and row_step % item == 0 and (rows == 1 or row_step >= cols * item):
        return True
    return (row_step == item or rows == 1) and col_step % item == 0 and (cols == 1 or col_step >= rows * item)


def _blas_matmul(a: TensorData, b: TensorData, out: TensorData) -> None:
    """``out = a @ b`` by NumPy's matmul, which calls BLAS (sgemm/dgemm) for each matrix."""
    a_view, b_view, out_view = a.numpy_view(), b.numpy_view(), out.numpy_view()
    a_view = a_view if _blas_ready(a_view) else np.ascontiguousarray(a_view)
    b_view = b_view if _blas_ready(b_view) else np.ascontiguousarray(b_view)
    if _blas_ready(out_view):
        np.matmul(a_view, b_view, out=out_view)
    else:  # a sliced out: compute apart, then copy in
        out_view[...] = np.matmul(a_view, b_view)


def _reduce_broadcast(op: str, a: TensorData, dim: int, out: TensorData) -> bool:
    """Reduce ``a`` along ``dim``, a broadcast dimension (stride 0: one element read ``n`` times), from
    that element alone, where this gives the kernel's very bits; False where it would not.

    ``max`` and ``min`` of ``n`` copies are the element. A sum of ``n`` copies of a float32 (or an
    integer) is ``n`` times it: the kernel adds in a float64 (int64) accumulator, where every partial
    sum of copies of a float32 is exact, and rounds once into ``out``, as the product here is rounded
    (an int64 product wraps as the sum does). A float64 sum would round at every step: not taken.
    A gradient's ``expand`` reduced again takes this path: the bias gradient of ``conv(x).sum()``
    read 524288 copies of one number, from a contiguous copy made first (334 us on 2 cores)."""
    kind = a.storage.dtype
    if op == "sum" and (kind == _FLOAT32 or kind.kind in "iu"):
        factor: Optional[int] = a.shape[dim]
    elif op in ("max", "min"):
        factor = None
    else:
        return False
    values = a.restrided(a.shape[:dim] + (1,) + a.shape[dim + 1 :], a.strides).numpy_view()
    if factor is not None:
        values = np.multiply(values, factor, dtype=np.float64 if kind.kind == "f" else np.int64)
    with np.errstate(over="ignore", invalid="ignore"):  # a sum past float32's range is inf, as the kernel's
        np.copyto(out.numpy_view(), values, casting="unsafe")
    return True


def _accumulator_start(op: str, buffer: np.ndarray) -> float | int:
    """Where a sum or product starts, typed as the accumulator: float64 for floats, else int64."""
    start = 1 if op == "prod" else 0
    return float(start) if buffer.dtype.kind == "f" else start


class CpuBackend:
    """Numba implementation of :class:`~minitorch.backends.base.Backend`."""

    name = "cpu"

    def empty(self, size: int, dtype: dtypes.dtype) -> np.ndarray:
        return cpu_memory.empty(size, dtype.numpy)

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        size = out.size
        if size and op != "copy" and cpu_in_place.writes_its_operand(out, a) and _flat_steps(out, a) is not None:
            return cpu_in_place.map_in_place(op, out)  # ``x.exp_()``: one run, read through out
        # a small op (below :func:`.cpu_kernels.threaded`, spelled out): one run, if the layout allows
        if size < kernels.PARALLEL_MIN_WORK and op != "copy":
            steps = _flat_steps(out, a)
            if steps is not None:
                entry = _MAP_FLAT.get(op) or _flat_entry(_MAP_FLAT, op, opcodes.UNARY_CODES, kernels.map_flat_entry)
                entry(out.buffer, a.buffer, steps[0], size)
                return
            rows = _rows_steps(out, a)
            if rows is not None:
                entry = _MAP_ROWS.get(op) or _flat_entry(_MAP_ROWS, op, opcodes.UNARY_CODES, kernels.map_rows_entry)
                entry(out.buffer, rows[0], rows[1], a.buffer, rows[2], rows[3])
                return
        code = code_of(opcodes.UNARY_CODES, op)
        if size == 0:
            return
        a_dtype, out_dtype = a.storage.dtype, out.storage.dtype
        if code == opcodes.COPY and (a_dtype != out_dtype or out_dtype in _LOW or not kernels.threaded(size)
                                     or a.size == 1):
            return _cast(a, out)
        steps = _flat_steps(out, a) if kernels.threaded(size) else None  # (small ops: looked at above)
        if steps is not None:
            shape, out_strides, a_strides = _flat_layout(out, steps)
            governed(size, kernels.map_entry(code, True), out.buffer, shape, out_strides, a.buffer, a_strides)
            return
        if a_dtype in _LOW or out_dtype in _LOW:
            return _through_float32(self.map, op, a, out)
        if kernels.threaded(size):
            walk = _walk_layout(out, a)
            if walk is not None:
                return governed(size, cpu_walk.map_entry(code), out.buffer, _operand(a), *walk)
        shape, out_strides, a_strides = _elementwise_layout(out, a)
        kernels.launch(size, kernels.map_entry(code, True), kernels.map_entry(code, False),
                       out.buffer, shape, out_strides, _operand(a), a_strides)

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        size = out.size
        if size and cpu_in_place.writes_its_operand(out, a):
            steps = _flat_steps(out, a, b)
            if steps is not None:  # ``x += y``, ``x *= 2``: one run, read through out
                return cpu_in_place.zip_in_place(op, out, b, steps[1])
        # a small op (below :func:`.cpu_kernels.threaded`, spelled out): one run, if the layout allows
        if size < kernels.PARALLEL_MIN_WORK:
            steps = _flat_steps(out, a, b)
            if steps is not None:
                entry = _ZIP_FLAT.get(op) or _flat_entry(_ZIP_FLAT, op, opcodes.BINARY_CODES, kernels.zip_flat_entry)
                entry(out.buffer, a.buffer, steps[0], b.buffer, steps[1], size)
                return
            rows = _rows_steps(out, a, b)
            if rows is not None:
                entry = _ZIP_ROWS.get(op) or _flat_entry(_ZIP_ROWS, op, opcodes.BINARY_CODES, kernels.zip_rows_entry)
                entry(out.buffer, rows[0], rows[1], a.buffer, rows[2], rows[3], b.buffer, rows[4], rows[5])
                return
        code = code_of(opcodes.BINARY_CODES, op)
        if size == 0:
            return
        steps = _flat_steps(out, a, b) if kernels.threaded(size) else None  # (small ops: looked at above)
        if steps is not None:
            shape, out_strides, a_strides, b_strides = _flat_layout(out, steps)
            governed(size, kernels.zip_entry(code, True), out.buffer, shape, out_strides, a.buffer, a_strides, b.buffer, b_strides)
            return
        if a.storage.dtype in _LOW or b.storage.dtype in _LOW or out.storage.dtype in _LOW:
            return _through_float32(self.zip, op, a, b, out)
        if kernels.threaded(size):
            walk = _walk_layout(out, a, b)
            if walk is not None:
                return governed(size, cpu_walk.zip_entry(code), out.buffer, _operand(a), _operand(b), *walk)
        shape, out_strides, a_strides, b_strides = _elementwise_layout(out, a, b)
        kernels.launch(size, kernels.zip_entry(code, True), kernels.zip_entry(code, False),
                       out.buffer, shape, out_strides, _operand(a), a_strides, _operand(b), b_strides)

    def mul_add(self, a: TensorData, b: TensorData, c: TensorData, out: TensorData) -> None:
        if out.storage.dtype in _LOW:  # PyTorch's fused multiply-add of 16-bit floats runs in float32
            return _through_float32(self.mul_add, a, b, c, out)
        cpu_mul_add.mul_add(a, b, c, out)

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        code = code_of(opcodes.REDUCE_CODES, op)
        if not reduce_has_work(a, dim, out):
            return
        if a.storage.dtype in _LOW or out.storage.dtype in _LOW:
            return _through_float32(self.reduce, op, a, dim, out)
        if a.strides[dim] == 0 and _reduce_broadcast(op, a, dim, out):
            return
        buffer, shape, a_strides, out_strides, dim = _reduce_layout(a, out, dim)
        shape, a_strides, out_strides, dim = _coalesced_reduction(shape, a_strides, out_strides, dim)
        start = _accumulator_start(op, buffer)
        if use_long_run_kernel and out.size == 1 and kernels.threaded(a.size) and a_strides[dim] == 1 and shape[dim] == a.size:
            # everything into one value: one run, cut into parts for the threads
            return governed(a.size, cpu_reduce_long.reduce_long_run, code, out.buffer, buffer, a.size, start)
        kernels.launch(a.size, kernels.reduce_entry(code, True), kernels.reduce_entry(code, False),
                       out.buffer, out_strides, buffer, shape, a_strides, dim, start)

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        code = code_of(opcodes.ARG_REDUCE_CODES, op)
        if not reduce_has_work(a, dim, out):
            return
        if a.storage.dtype in _LOW:
            return _through_float32(self.arg_reduce, op, a, dim, out)
        shape, a_strides, out_strides, dim = _coalesced_reduction(*_layout(a), _layout(out)[1], dim)
        kernels.launch(a.size, kernels.arg_reduce_entry(code, True), kernels.arg_reduce_entry(code, False),
                       out.buffer, out_strides, _operand(a), shape, a_strides, dim)

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        """BLAS for floats if :data:`use_blas` is set, else the first of the small, the
        outer-product and the students' kernel that takes the product (see the module's docstring)."""
        if out.size == 0:
            return
        if not _one_float_dtype(a, b, out):
            if a.storage.dtype in _LOW or b.storage.dtype in _LOW or out.storage.dtype in _LOW:
                return _through_float32(self.matmul, a, b, out)
            return numba_matmul(a, b, out)
        work = out.size * a.shape[-1]
        if use_blas and work >= BLAS_MIN_WORK:
            return _blas_matmul(a, b, out)
        if use_small_kernel and not kernels.threaded(work):
            return small_matmul(a, b, out)
        if use_outer_kernel and outer_matmul_fits(a, b, out):
            return outer_matmul(a, b, out)
        numba_matmul(a, b, out)

    # ---- fused ops ----

    def log_softmax(self, a: TensorData, out: TensorData) -> None:
        """One pass per row by the kernel of :mod:`.cpu_log_softmax`, on contiguous copies where the views are not."""
        if out.size == 0:
            return
        if a.storage.dtype in _LOW or out.storage.dtype in _LOW:
            return _through_float32(self.log_softmax, a, out)
        from . import cpu_log_softmax

        rows, width = out.shape
        source = a.contiguous_buffer()
        target = out if out.is_contiguous() else TensorData(np.empty(out.size, out.storage.dtype), out.shape)
        kernels.launch(out.size, cpu_log_softmax.log_softmax_kernel, cpu_log_softmax.log_softmax_kernel_serial,
                       target.buffer, source, rows, width)
        if target is not out:
            _cast(target, out)

    # ---- direct convolution (:class:`~.base.ConvKernels`): kernels in :mod:`.cpu_conv` ----

    def conv2d_pays(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...], geometry: ConvGeometry,
                    transposed: bool = False) -> bool:
        from . import cpu_conv

        pays = cpu_conv.transposed_direct_pays if transposed else cpu_conv.direct_pays
        return pays(x_shape, w_shape, geometry)

    def conv2d(self, x: TensorData, w: TensorData, bias: Optional[TensorData], geometry: ConvGeometry,
               out: TensorData) -> None:
        from . import cpu_conv

        cpu_conv.conv2d(x, w, bias, geometry, out)

    def conv2d_input_grad(self, grad: TensorData, w: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
        from . import cpu_conv

        cpu_conv.conv2d_input_grad(grad, w, geometry, out)

    def conv2d_weight_grad(self, grad: TensorData, x: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
        from . import cpu_conv

        cpu_conv.conv2d_weight_grad(grad, x, geometry, out)

    # ---- direct max-pooling (:class:`~.base.PoolKernels`): the kernel in :mod:`.cpu_pool` ----

    def max_pool2d(self, x: TensorData, geometry: PoolGeometry, values: TensorData, indices: TensorData) -> None:
        from . import cpu_pool

        cpu_pool.max_pool2d(x, geometry, values, indices)

    def max_pool2d_backward(self, grad: TensorData, indices: TensorData, grad_x: TensorData) -> int:
        from . import cpu_pool

        return cpu_pool.max_pool2d_backward(grad, indices, grad_x)

    def adam_step(self, param: TensorData, grad: TensorData, exp_avg: TensorData, exp_avg_sq: TensorData,
                  max_exp_avg_sq: Optional[TensorData], step: AdamStep) -> None:
        from . import cpu_optim

        cpu_optim.adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step)

    def sgd_step(self, param: TensorData, grad: TensorData, momentum_buffer: Optional[TensorData],
                 step: SgdStep) -> None:
        from . import cpu_optim

        cpu_optim.sgd_step(param, grad, momentum_buffer, step)

    # ---- cross-entropy (:class:`~.base.LossKernels`): kernels in :mod:`.cpu_losses` ----

    def target_range(self, target: TensorData, ignore_index: int) -> tuple[int, int, int]:
        from . import cpu_losses

        return cpu_losses.target_range(target, ignore_index)

    def cross_entropy(self, x: TensorData, target: TensorData, ignore_index: int, log_p: TensorData,
                      losses: TensorData) -> float:
        from . import cpu_losses

        return cpu_losses.cross_entropy(x, target, ignore_index, log_p, losses)

    def cross_entropy_backward(self, log_p: TensorData, target: TensorData, ignore_index: int, grad: TensorData,
                               divisor: int, grad_x: TensorData) -> None:
        from . import cpu_losses

        cpu_losses.cross_entropy_backward(log_p, target, ignore_index, grad, divisor, grad_x)

    # ---- the LSTM and GRU time loops (:class:`~.base.RecurrentKernels`): kernels in :mod:`.cpu_rnn` ----

    def lstm_forward(self, xw: TensorData, w_hh_t: TensorData, h0: TensorData, c0: TensorData, reverse: bool,
                     gates: TensorData, slopes: TensorData, tanh_c: TensorData, cs: TensorData, hs: TensorData,
                     hw: TensorData) -> None:
        from . import cpu_rnn

        cpu_rnn.lstm_forward(PackedRight(w_hh_t, self.matmul), xw, w_hh_t, h0, c0, reverse, gates, slopes, tanh_c,
                             cs, hs, hw)

    def lstm_backward(self, grad: TensorData, w_hh: TensorData, reverse: bool, gates: TensorData,
                      slopes: TensorData, tanh_c: TensorData, cs: TensorData, c0: TensorData,
                      carried_h: TensorData, carried_c: TensorData, grad_pre: TensorData) -> None:
        from . import cpu_rnn

        cpu_rnn.lstm_backward(PackedRight(w_hh, self.matmul), grad, w_hh, reverse, gates, slopes, tanh_c, cs, c0,
                              carried_h, carried_c, grad_pre)

    def gru_forward(self, xw: TensorData, w_hh_t: TensorData, b_hh: TensorData, h0: TensorData, reverse: bool,
                    rzn: TensorData, hwn: TensorData, hs: TensorData, hw: TensorData) -> None:
        from . import cpu_rnn

        cpu_rnn.gru_forward(PackedRight(w_hh_t, self.matmul), xw, w_hh_t, b_hh, h0, reverse, rzn, hwn, hs, hw)

    def gru_backward(self, grad: TensorData, w_hh: TensorData, reverse: bool, rzn: TensorData, hwn: TensorData,
                     hs: TensorData, h0: TensorData, carried: TensorData, direct: TensorData,
                     grad_x: TensorData, grad_hw: TensorData) -> None:
        from . import cpu_rnn

        cpu_rnn.gru_backward(PackedRight(w_hh, self.matmul), grad, w_hh, reverse, rzn, hwn, hs, h0, carried, direct,
                             grad_x, grad_hw)

    # ---- joining (:class:`~.base.ConcatKernels`) ----

    def cat(self, parts: Sequence[TensorData], dim: int, out: TensorData) -> None:
        """NumPy's concatenate into ``out``: one call for all the parts, where a copy per part
        costs a Python dispatch each (64 samples of 1 x 28 x 28, stacked: 1.5 ms that way)."""
        np.concatenate([part.numpy_view() for part in parts], axis=dim, out=out.numpy_view())

    # ---- indexing primitives (step 5): kernels and their layouts in :mod:`.cpu_index_kernels` ----

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        from . import cpu_index_kernels

        cpu_index_kernels.accumulate(src, out)

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        from . import cpu_index_kernels

        cpu_index_kernels.gather(a, dim, index, out)

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        from . import cpu_index_kernels

        cpu_index_kernels.scatter_add(src, dim, index, out)
