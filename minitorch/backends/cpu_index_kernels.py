"""Numba kernels of the CPU backend's indexing primitives: ``accumulate``, ``gather``, ``scatter_add``.

The contracts are in :class:`~minitorch.backends.base.Backend`. Each kernel walks its
tensor as *rows*: every dimension but the last picks a row, and a plain loop runs along the
last one. ``gather`` and ``scatter_add`` find each row's start by division
(:func:`~minitorch.backends.cpu_kernels.start_position`); ``accumulate``, which a fold or a
window view's gradient calls with rows of a few elements, counts it on from the row before
(:mod:`.cpu_walk`), in the order of :func:`.cpu_walk.walk_order` (the order of the visits
does not change a sum's meaning). The Python functions at the bottom hand the kernels int64
shapes and strides, as :mod:`.cpu` does for the elementwise kernels. Index values and shapes
arrive checked (:mod:`minitorch.index_checks`, run by the dispatch layer for every
backend), so nothing here checks them again.

Parallelism: ``gather`` writes each output element once, so its rows are shared between
threads. ``accumulate`` and ``scatter_add`` may add into one storage element from many
places; ``accumulate`` runs in parallel only over a dimension whose slices touch disjoint
storage (proved from the strides, :func:`.cpu_walk.disjoint_dim`), ``scatter_add`` runs serially.
Float16 and bool tensors (which Numba cannot compute on) take NumPy's ``np.add.at`` path.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import dtypes
from ..tensor_data import TensorData, expand_strides
from . import kernel_cache
from .cpu_kernels import KERNEL_OPTIONS, count, kernel_only, launch, prange_only, serial_twin, start_position, threaded
from .cpu_thread_governor import governed
from .cpu_walk import first_row, next_row, parts_for, walk_layout

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

_NATIVE_KINDS = "fiu"  # dtype kinds the kernels compile for (the 16-bit floats are excluded below)


# ---- kernels ----


@kernel_only(**KERNEL_OPTIONS)
def accumulate_rows(
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    src: np.ndarray, src_strides: np.ndarray, first: int, stop: int,
) -> None:
    """``out[i] += src[i]`` for the rows ``first <= row < stop``, one element after another;
    each row's start counted on from the one before (:mod:`.cpu_walk`)."""
    last = shape.size - 1
    width = shape[last]
    out_step, src_step = np.uint64(out_strides[last]), np.uint64(src_strides[last])  # (unsigned: see cpu_walk)
    index = np.zeros(last, np.int64)
    out_pos, src_pos = first_row(first, shape, index, out_strides, src_strides)
    for _ in range(first, stop):
        o, s = np.uint64(out_pos), np.uint64(src_pos)
        for _ in range(width):
            out[o] += src[s]
            o += out_step
            s += src_step
        out_pos, src_pos = next_row(shape, index, out_pos, out_strides, src_pos, src_strides)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def accumulate_kernel(
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    src: np.ndarray, src_strides: np.ndarray, parts: int,
) -> None:
    """``out[i] += src[i]`` over ``shape``; threads share dimension 0, cut into ``parts`` parts.

    More than one part promises that the slices along dimension 0 touch disjoint storage.
    """
    rows = count(shape[:-1])
    if shape.size > 1 and parts > 1:
        per_slab = rows // shape[0]
        for part in prange(parts):
            first = np.int64(part) * shape[0] // parts * per_slab
            stop = (np.int64(part) + 1) * shape[0] // parts * per_slab
            accumulate_rows(out, shape, out_strides, src, src_strides, first, stop)
    else:
        accumulate_rows(out, shape, out_strides, src, src_strides, 0, rows)


@kernel_only(**KERNEL_OPTIONS)
def gather_rows(
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_walk: np.ndarray, a_dim_stride: int,
    index: np.ndarray, index_strides: np.ndarray, first: int, stop: int,
) -> None:
    """Rows ``first <= row < stop`` of ``out[i] = a[i with i[dim] = index[i]]``.

    ``a_walk`` is ``a``'s strides with the gathered dimension's set to 0: the position of
    ``a`` is the walk plus ``index[i] * a_dim_stride``.
    """
    inner = shape.size - 1
    width = shape[inner]
    for row in range(first, stop):
        out_pos = start_position(row, shape, out_strides, inner)
        a_pos = start_position(row, shape, a_walk, inner)
        index_pos = start_position(row, shape, index_strides, inner)
        for j in range(width):
            value = index[index_pos + j * index_strides[inner]]
            out[out_pos + j * out_strides[inner]] = a[a_pos + j * a_walk[inner] + value * a_dim_stride]


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def gather_kernel(
    out: np.ndarray, shape: np.ndarray, out_strides: np.ndarray,
    a: np.ndarray, a_walk: np.ndarray, a_dim_stride: int,
    index: np.ndarray, index_strides: np.ndarray,
) -> None:
    """``out[i] = a[i with i[dim] = index[i]]`` for every index ``i`` of ``shape``."""
    for row in prange(count(shape[:-1])):
        first = np.int64(row)
        gather_rows(out, shape, out_strides, a, a_walk, a_dim_stride, index, index_strides, first, first + 1)


#: the kernels above without threads, for small tensors (see :func:`.cpu_kernels.serial_twin`):
#: a first small call then compiles no ``prange``
accumulate_kernel_serial = serial_twin(accumulate_kernel, **KERNEL_OPTIONS)
gather_kernel_serial = serial_twin(gather_kernel, **KERNEL_OPTIONS)


@njit(**KERNEL_OPTIONS)
def scatter_add_kernel(
    out: np.ndarray, out_walk: np.ndarray, out_dim_stride: int, shape: np.ndarray,
    src: np.ndarray, src_strides: np.ndarray, index: np.ndarray, index_strides: np.ndarray,
) -> None:
    """``out[i with i[dim] = index[i]] += src[i]`` for every index ``i`` of ``shape``, serially."""
    inner = shape.size - 1
    width = shape[inner]
    for row in range(count(shape[:-1])):
        out_pos = start_position(row, shape, out_walk, inner)
        src_pos = start_position(row, shape, src_strides, inner)
        index_pos = start_position(row, shape, index_strides, inner)
        for j in range(width):
            value = index[index_pos + j * index_strides[inner]]
            out[out_pos + j * out_walk[inner] + value * out_dim_stride] += src[src_pos + j * src_strides[inner]]


# ---- the Python side: layouts, checks, the NumPy path ----


def _int64(values: tuple[int, ...] | list[int]) -> np.ndarray:
    return np.array(values, np.int64)


def _native(*tds: TensorData) -> bool:
    """True when every operand has a dtype the kernels compile for."""
    return all(td.storage.dtype.kind in _NATIVE_KINDS and not dtypes.is_low_precision(td.storage.dtype) for td in tds)


def _positions(td: TensorData, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """Absolute storage positions of every index of ``shape`` walked with ``strides``."""
    positions = np.full(shape, td.offset, np.int64)
    for d, (size, stride) in enumerate(zip(shape, strides)):
        positions += (np.arange(size, dtype=np.int64) * stride).reshape([-1 if e == d else 1 for e in range(len(shape))])
    return positions


def accumulate(src: TensorData, out: TensorData) -> None:
    if out.size == 0:
        return
    if not _native(src, out) or src.storage.dtype != out.storage.dtype:
        shape, out_strides = out.shape or (1,), out.strides or (1,)
        src_strides = expand_strides(src.shape, src.strides, out.shape) or (0,)
        values = np.lib.stride_tricks.as_strided(
            src.buffer, shape, [s * src.storage.itemsize for s in src_strides]
        ).astype(out.storage.dtype)
        np.add.at(out.storage, _positions(out, shape, out_strides), values)
        return
    shape, (walk_out, walk_src), split = walk_layout(out, src, split_disjoint=True)  # cached per layout
    parts = parts_for(int(shape[0])) if split and threaded(out.size) else 1
    if parts > 1:
        governed(out.size, accumulate_kernel, out.buffer, shape, walk_out, src.buffer, walk_src, parts)
    else:
        accumulate_kernel_serial(out.buffer, shape, walk_out, src.buffer, walk_src, parts)


def gather(a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
    if out.size == 0:
        return
    if not _native(a, out):
        out.numpy_view()[...] = _gather_numpy(a.numpy_view(), dim, index.numpy_view())
        return
    a_walk = list(a.strides)
    a_walk[dim] = 0
    launch(
        out.size, gather_kernel, gather_kernel_serial,
        out.buffer, _int64(out.shape), _int64(out.strides), a.buffer, _int64(a_walk), a.strides[dim],
        index.buffer, _int64(index.strides),
    )


def _gather_numpy(a: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """NumPy's gather of ``a`` cut to ``index``'s extent in the other dimensions."""
    cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return np.take_along_axis(a[cut], index, dim)


def scatter_add(src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
    if index.size == 0:
        return
    out_walk = list(out.strides)
    out_walk[dim] = 0
    if not _native(src, out) or src.storage.dtype != out.storage.dtype:
        walk = _positions(out, index.shape, tuple(out_walk))
        positions = walk + index.numpy_view() * out.strides[dim]
        np.add.at(out.storage, positions, src.numpy_view()[tuple(slice(0, n) for n in index.shape)].astype(out.storage.dtype))
        return
    scatter_add_kernel(
        out.buffer, _int64(out_walk), out.strides[dim], _int64(index.shape),
        src.buffer, _int64(src.strides), index.buffer, _int64(index.strides),
    )
