"""The simple backend: plain Python loops over every element.

Slow on purpose and easy to check by eye; the course builds it first and the tests use it
as the reference the fast backends must agree with. Every op is one loop over the output:
turn the ordinal into an index, broadcast it into each input, read, compute, write. The
scalar math is :mod:`.opcodes`' bodies run as plain Python on NumPy scalars, so each
dtype's arithmetic (float32 rounding, integer wrap-around) is NumPy's, and results outside
a function's domain are IEEE values (warnings off, as in compiled code).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .. import dtypes
from ..tensor_data import TensorData, broadcast_index, index_to_position, to_index
from . import opcodes
from .base import check_reduce_shapes, log_softmax_by_primitives
from .fused_multiply_add import fma
from .opcodes import code_of


def _python_value(value: object) -> object:
    """NumPy scalars as Python numbers (for the index arithmetic and sums of the indexing primitives)."""
    return value.item() if isinstance(value, np.generic) else value


def _readable(buffer: np.ndarray) -> np.ndarray:
    """The buffer the op bodies read: bool as uint8 (the same bytes), as the compiled backends do."""
    return buffer.view(np.uint8) if buffer.dtype == np.bool_ else buffer


def _lines(a: TensorData, dim: int, out: TensorData) -> Iterator[tuple[int, list]]:
    """For each cell of ``out``: its storage position, and the values of ``a`` along ``dim``
    that reduce into it, in order (as Python numbers)."""
    out_index = np.zeros(out.dims, np.int64)
    a_buf = a.buffer
    for ordinal in range(out.size):
        to_index(ordinal, out.shape, out_index)
        a_index = out_index.copy()
        values = []
        for j in range(a.shape[dim]):
            a_index[dim] = j
            values.append(_python_value(a_buf[index_to_position(a_index, a.strides)]))
        yield index_to_position(out_index, out.strides), values


def _moved_along(dim: int, at: np.ndarray, index: TensorData) -> np.ndarray:
    """``at`` with ``at[dim]`` replaced by ``index[at]``: where gather reads and scatter_add writes."""
    moved = at.copy()
    moved[dim] = index.buffer[index_to_position(at, index.strides)]
    return moved


class SimpleBackend:
    """Pure-Python implementation of :class:`~minitorch.backends.base.Backend`."""

    name = "simple"

    def empty(self, size: int, dtype: dtypes.dtype) -> np.ndarray:
        return np.empty(size, dtype=dtype.numpy)

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        code = code_of(opcodes.UNARY_CODES, op)
        out_index = np.zeros(out.dims, np.int64)
        a_index = np.zeros(a.dims, np.int64)
        a_buf, out_buf = _readable(a.buffer), out.buffer
        with np.errstate(all="ignore"):
            for ordinal in range(out.size):
                to_index(ordinal, out.shape, out_index)
                broadcast_index(out_index, out.shape, a.shape, a_index)
                x = a_buf[index_to_position(a_index, a.strides)]
                opcodes.unary_into(code, x, out_buf, index_to_position(out_index, out.strides))

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        code = code_of(opcodes.BINARY_CODES, op)
        out_index = np.zeros(out.dims, np.int64)
        a_index = np.zeros(a.dims, np.int64)
        b_index = np.zeros(b.dims, np.int64)
        a_buf, b_buf, out_buf = _readable(a.buffer), _readable(b.buffer), out.buffer
        with np.errstate(all="ignore"):
            for ordinal in range(out.size):
                to_index(ordinal, out.shape, out_index)
                broadcast_index(out_index, out.shape, a.shape, a_index)
                broadcast_index(out_index, out.shape, b.shape, b_index)
                x = a_buf[index_to_position(a_index, a.strides)]
                y = b_buf[index_to_position(b_index, b.strides)]
                opcodes.binary_into(code, x, y, out_buf, index_to_position(out_index, out.strides))

    def mul_add(self, a: TensorData, b: TensorData, c: TensorData, out: TensorData) -> None:
        """``out = a * b + c`` rounded once (:func:`.fused_multiply_add.fma`: exact in plain Python);
        16-bit floats in float32, rounded once more on the store, as PyTorch computes them. Every
        value is read before any is written: ``out`` may be an operand."""
        wide = np.float32 if out.storage.dtype in dtypes.LOW_PRECISION_NUMPY else None
        out_index = np.zeros(out.dims, np.int64)
        operands = [(t.buffer, t.shape, t.strides, np.zeros(t.dims, np.int64)) for t in (a, b, c)]
        results = []
        for ordinal in range(out.size):
            to_index(ordinal, out.shape, out_index)
            values = []
            for buffer, shape, strides, index in operands:
                broadcast_index(out_index, out.shape, shape, index)
                value = buffer[index_to_position(index, strides)]
                values.append(wide(value) if wide else value)
            results.append((index_to_position(out_index, out.strides), fma(*values)))
        for position, value in results:
            out.buffer[position] = value

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        check_reduce_shapes(a, dim, out)
        code = code_of(opcodes.REDUCE_CODES, op)
        out_buf = out.buffer
        for out_pos, values in _lines(a, dim, out):
            acc = None
            for value in values:
                acc = value if acc is None else opcodes.reduce_step(code, acc, value)
            if acc is None:  # an empty dimension: only sum and prod have an identity
                acc = 1 if code == opcodes.PROD else 0
            out_buf[out_pos] = acc

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        check_reduce_shapes(a, dim, out)
        code = code_of(opcodes.ARG_REDUCE_CODES, op)
        out_buf = out.buffer
        for out_pos, values in _lines(a, dim, out):
            best_pos, best = 0, None
            for j, value in enumerate(values):
                if best is None or opcodes.is_better(code, value, best):
                    best_pos, best = j, value
            out_buf[out_pos] = best_pos

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        n, k = a.shape[-2], a.shape[-1]
        m = b.shape[-1]
        batch_shape = out.shape[:-2]
        batch_index = np.zeros(len(batch_shape), np.int64)
        a_batch = np.zeros(len(batch_shape), np.int64)
        b_batch = np.zeros(len(batch_shape), np.int64)
        a_buf, b_buf, out_buf = a.buffer, b.buffer, out.buffer
        batches = int(np.prod(batch_shape, dtype=np.int64))
        for batch in range(batches):
            to_index(batch, batch_shape, batch_index)
            broadcast_index(batch_index, batch_shape, a.shape[:-2], a_batch)
            broadcast_index(batch_index, batch_shape, b.shape[:-2], b_batch)
            a_base = index_to_position(a_batch, a.strides[:-2])
            b_base = index_to_position(b_batch, b.strides[:-2])
            out_base = index_to_position(batch_index, out.strides[:-2])
            for i in range(n):
                for j in range(m):
                    acc = 0
                    for p in range(k):
                        x = a_buf[a_base + i * a.strides[-2] + p * a.strides[-1]]
                        y = b_buf[b_base + p * b.strides[-2] + j * b.strides[-1]]
                        acc += _python_value(x) * _python_value(y)
                    out_buf[out_base + i * out.strides[-2] + j * out.strides[-1]] = acc

    # ---- indexing primitives (step 5): one loop over the elements, as everywhere here ----

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        out_index = np.zeros(out.dims, np.int64)
        src_index = np.zeros(src.dims, np.int64)
        src_buf, out_buf = src.buffer, out.buffer
        for ordinal in range(out.size):
            to_index(ordinal, out.shape, out_index)
            broadcast_index(out_index, out.shape, src.shape, src_index)
            pos = index_to_position(out_index, out.strides)
            out_buf[pos] = _python_value(out_buf[pos]) + _python_value(src_buf[index_to_position(src_index, src.strides)])

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        out_index = np.zeros(out.dims, np.int64)
        a_buf, out_buf = a.buffer, out.buffer
        for ordinal in range(out.size):
            to_index(ordinal, out.shape, out_index)
            a_index = _moved_along(dim, out_index, index)
            out_buf[index_to_position(out_index, out.strides)] = a_buf[index_to_position(a_index, a.strides)]

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        src_index = np.zeros(src.dims, np.int64)
        src_buf, out_buf = src.buffer, out.buffer
        for ordinal in range(index.size):
            to_index(ordinal, index.shape, src_index)
            out_index = _moved_along(dim, src_index, index)
            pos = index_to_position(out_index, out.strides)
            value = _python_value(src_buf[index_to_position(src_index, src.strides)])
            out_buf[pos] = _python_value(out_buf[pos]) + value

    # ---- fused ops ----

    def log_softmax(self, a: TensorData, out: TensorData) -> None:
        log_softmax_by_primitives(self, a, out)
