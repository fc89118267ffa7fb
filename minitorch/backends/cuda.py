"""The cuda backend: Numba ``@cuda.jit`` kernels (in :mod:`.cuda_kernels`) over device storage.

A cuda tensor's storage is a Numba device array; every op here launches kernels on device
arrays and never copies values through the host. The only host transfers are
:meth:`CudaBackend.upload` and :meth:`CudaBackend.download`, which ``Tensor.to``, ``cpu()``,
``item()``, ``tolist()`` and printing use.

This module is the Python side: op names to op codes, views to (storage, offset, shape,
strides) with operand strides broadcast to ``out``'s shape, launch configurations (the
sizes below are module constants the tests shrink), and three dtype details shared with
the cpu backend:

* float16 and bfloat16 operands are widened to float32 copies on the device and a 16-bit ``out``
  is computed in float32 and rounded into place (only copies convert to and from float16;
  bfloat16, which Numba has no type for, is read as its bits, :mod:`.cuda_bfloat16`);
* bool inputs are read as uint8 (the same bytes); a bool ``out`` stays bool;
* reductions accumulate in float64 (float inputs) or int64 (integer and bool inputs).

With ``NUMBA_ENABLE_CUDASIM=1`` Numba runs the very same kernels on its CPU simulator (one
Python thread per GPU thread: correct, and slow).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numba
import numpy as np
from numba import cuda

from .. import dtypes
from ..tensor_data import Shape, Strides, TensorData, expand_strides
from . import cuda_kernels as kernels
from . import cuda_bfloat16, cuda_log_softmax, cuda_mul_add, cuda_optim, opcodes
from .base import AdamStep, SgdStep, log_softmax_by_primitives, reduce_has_work
from .cuda_launch import launch
from .cuda_matmul_blocked import blocked_matmul_kernel, check_blocking
from .opcodes import code_of

#: threads per block of the elementwise kernels
THREADS_PER_BLOCK = 256
#: the most threads of one reduction block (a power of two); a shorter dimension gets the
#: smallest power of two that covers it
REDUCE_THREADS = 256
#: side of the square tiles of the matmul (a block has ``TILE * TILE`` threads)
TILE = 16
#: the most blocks along x of one launch (elementwise, reductions): kernels loop over the rest
MAX_BLOCKS = 1 << 16
#: the most blocks along z of a matmul launch (one per batch; the kernel loops over the rest)
MAX_BATCH_BLOCKS = 65535
#: whether float products large enough (:data:`BLOCKED_MIN_BLOCKS`) take the register-blocked
#: kernel of :mod:`.cuda_matmul_blocked` instead of the students' tiled one (task 3.7)
use_blocked_matmul = True
#: the register-blocked kernel's ``(block_m, block_n, block_k, thread_m, thread_n)``: a block
#: computes a 64 x 64 tile of ``out`` with 256 threads of 4 x 4 cells each (compiled for sm_90:
#: 128 registers per thread, none spilled, 4 KiB of shared memory in float32)
BLOCKED_MATMUL = (64, 64, 8, 4, 4)
#: the fewest blocks of ``out`` (over all batches) that take the blocked kernel: below about
#: one per multiprocessor, the students' kernel's 16x more, smaller blocks keep more of them busy
BLOCKED_MIN_BLOCKS = 128

_BFLOAT16 = dtypes.bfloat16.numpy
_LOW = dtypes.LOW_PRECISION_NUMPY  # float16 and bfloat16: computed through float32
_FLOAT = np.dtype(np.float32)
#: bfloat16 storage read as its bits: int16 views (a minitorch dtype) for copies, unsigned for the kernels
_BITS16, _UNSIGNED16, _UNSIGNED32 = np.dtype(np.int16), np.dtype(np.uint16), np.dtype(np.uint32)
_BOOL = np.dtype(np.bool_)
#: dtypes the GPU adds atomically; the others accumulate in a wider copy of their storage
_ATOMIC = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64)}


def _layout(td: TensorData) -> tuple[Shape, Strides]:
    """Shape and strides as the kernels take them: a 0-d view reads as shape ``(1,)``."""
    if td.dims > kernels.MAX_DIMS:
        raise RuntimeError(f"cuda tensors have at most {kernels.MAX_DIMS} dimensions, got shape {td.shape}")
    return (td.shape, td.strides) if td.dims else ((1,), (1,))


def _strides_in(a: TensorData, out: TensorData) -> Strides:
    """``a``'s strides broadcast to ``out``'s shape (0 along broadcast dimensions)."""
    if a.shape == out.shape:
        return _layout(a)[1]
    return expand_strides(a.shape, a.strides, out.shape)


def _operand(td: TensorData) -> Any:
    """The device array a kernel reads: bool as uint8, so integer arithmetic compiles for it;
    bfloat16 as its bits (int16: only copies and gathers, which move bits, see it so)."""
    dtype = td.storage.dtype
    if dtype == _BOOL:
        return td.storage.view(np.uint8)
    return td.storage.view(_BITS16) if dtype == _BFLOAT16 else td.storage


def _bits(td: TensorData) -> TensorData:
    """The view ``td`` of a bfloat16 storage read as its bits (int16)."""
    return TensorData(td.storage.view(_BITS16), td.shape, td.strides, td.offset)


def _dense(out: TensorData, *operands: TensorData) -> bool:
    """Whether every operand is laid out exactly as a contiguous ``out``: position = ordinal."""
    return out.is_contiguous() and all(a.shape == out.shape and a.strides == out.strides for a in operands)


def _blocks(work: int, per_block: int) -> int:
    """Blocks that cover ``work`` items at ``per_block`` each, at most :data:`MAX_BLOCKS`."""
    return max(1, min(MAX_BLOCKS, -(-work // per_block)))


def _power_of_two_at_least(n: int, cap: int) -> int:
    """The smallest power of two >= ``n``, at most ``cap``."""
    return min(cap, 1 << max(0, math.ceil(math.log2(max(n, 1)))))


def _accumulator(dtype: np.dtype) -> Any:
    """The Numba type reductions accumulate in: float64 for floats, int64 otherwise."""
    return numba.float64 if dtype.kind == "f" else numba.int64


def _wider(dtype: np.dtype) -> np.dtype:
    """The dtype with atomic adds that stands in for ``dtype`` (a 16-bit float -> float32, else int64)."""
    return _FLOAT if dtype in _LOW else np.dtype(np.int64)


def _contiguous(size: int, dtype: np.dtype, shape: Shape) -> TensorData:
    """A fresh contiguous device view."""
    return TensorData(cuda.device_array(size, dtype), shape)


class CudaBackend:
    """Numba CUDA implementation of :class:`~minitorch.backends.base.Backend`."""

    name = "cuda"

    def __init__(self) -> None:
        if not cuda.is_available():
            raise RuntimeError(
                "Found no NVIDIA driver on your system: no CUDA GPU can be used. Run on a machine with "
                "an NVIDIA GPU, or set NUMBA_ENABLE_CUDASIM=1 before Numba is imported to run the cuda "
                "kernels on Numba's (slow) CPU simulator."
            )
        if not numba.config.ENABLE_CUDASIM:
            from . import cuda_memory

            cuda_memory.install()  # before the first device array creates the context

    def device_count(self) -> int:
        """How many GPUs Numba sees (the simulator shows one)."""
        return len(cuda.gpus)

    # ---- storage and transfers ----

    def empty(self, size: int, dtype: dtypes.dtype) -> Any:
        return cuda.device_array(size, dtype.numpy)

    def upload(self, array: np.ndarray) -> Any:
        """Host to device: a contiguous device copy of ``array``, flattened."""
        return cuda.to_device(np.ascontiguousarray(array).reshape(-1))

    def download(self, td: TensorData) -> np.ndarray:
        """Device to host: the values of the view ``td`` as a new contiguous NumPy array."""
        if td.size == 0:
            return np.empty(td.shape, td.storage.dtype)
        if not td.is_contiguous():
            dense = _contiguous(td.size, td.storage.dtype, td.shape)
            self.map("copy", td, dense)
            td = dense
        return td.storage[td.offset : td.offset + td.size].copy_to_host().reshape(td.shape)

    def synchronize(self) -> None:
        """Wait for every launched kernel to finish."""
        cuda.synchronize()

    # ---- float16 and bfloat16 ----

    def _widened(self, td: TensorData) -> TensorData:
        """A contiguous float32 copy (on the device) of a float16 or bfloat16 view."""
        wide = _contiguous(td.size, _FLOAT, td.shape)
        if td.storage.dtype != _BFLOAT16:
            self._launch_map(opcodes.COPY, td, wide)
            return wide
        bits = _contiguous(td.size, _BITS16, td.shape)
        self._launch_map(opcodes.COPY, _bits(td), bits)
        launch(cuda_bfloat16.widen_kernel, _blocks(td.size, THREADS_PER_BLOCK), THREADS_PER_BLOCK,
               td.size, wide.storage.view(_UNSIGNED32), bits.storage.view(_UNSIGNED16))
        return wide

    def _rounded_into(self, wide: TensorData, out: TensorData) -> None:
        """Round the contiguous float32 ``wide`` into the float16 or bfloat16 view ``out``."""
        if out.storage.dtype != _BFLOAT16:
            self._launch_map(opcodes.COPY, wide, out)
            return
        bits = _contiguous(out.size, _BITS16, out.shape)
        launch(cuda_bfloat16.round_kernel, _blocks(out.size, THREADS_PER_BLOCK), THREADS_PER_BLOCK,
               out.size, bits.storage.view(_UNSIGNED16), wide.storage.view(_UNSIGNED32))
        self._launch_map(opcodes.COPY, bits, _bits(out))

    def _through_float32(self, method: Callable[..., None], *args: Any) -> None:
        """Call ``method`` with float32 stand-ins for its 16-bit float views (the last one is ``out``)."""
        *inputs, out = args
        inputs = [self._widened(x) if isinstance(x, TensorData) and x.storage.dtype in _LOW else x for x in inputs]
        if out.storage.dtype not in _LOW:
            method(*inputs, out)
            return
        temp = _contiguous(out.size, _FLOAT, out.shape)
        method(*inputs, temp)
        self._rounded_into(temp, out)

    # ---- the primitives ----

    def _launch_map(self, code: int, a: TensorData, out: TensorData) -> None:
        shape, out_strides = _layout(out)
        blocks = _blocks(out.size, THREADS_PER_BLOCK)
        launch(
            kernels.map_kernel, blocks, THREADS_PER_BLOCK,
            code, out.size, _dense(out, a),
            _bits(out).storage if out.storage.dtype == _BFLOAT16 else out.storage, out.offset, shape, out_strides,
            _operand(a), a.offset, _strides_in(a, out),
        )

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        code = code_of(opcodes.UNARY_CODES, op)
        if out.size == 0:
            return
        a_dtype, out_dtype = a.storage.dtype, out.storage.dtype
        if a_dtype in _LOW or out_dtype in _LOW:
            if code == opcodes.COPY and a_dtype == out_dtype:  # the same bits (bfloat16's as uint16)
                return self._launch_map(code, a, out)
            if code == opcodes.COPY and _BFLOAT16 not in (a_dtype, out_dtype) and _FLOAT in (a_dtype, out_dtype):
                return self._launch_map(code, a, out)  # float32 <-> float16 converts directly
            # everything else goes through float32
            return self._through_float32(self.map, op, a, out)
        self._launch_map(code, a, out)

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        code = code_of(opcodes.BINARY_CODES, op)
        if out.size == 0:
            return
        if a.storage.dtype in _LOW or b.storage.dtype in _LOW or out.storage.dtype in _LOW:
            return self._through_float32(self.zip, op, a, b, out)
        shape, out_strides = _layout(out)
        blocks = _blocks(out.size, THREADS_PER_BLOCK)
        launch(
            kernels.zip_kernel, blocks, THREADS_PER_BLOCK,
            code, out.size, _dense(out, a, b),
            out.storage, out.offset, shape, out_strides,
            _operand(a), a.offset, _strides_in(a, out),
            _operand(b), b.offset, _strides_in(b, out),
        )

    def mul_add(self, a: TensorData, b: TensorData, c: TensorData, out: TensorData) -> None:
        if out.size == 0:
            return
        if out.storage.dtype in _LOW:  # in float32, rounded once more on the store, as PyTorch's
            return self._through_float32(self.mul_add, a, b, c, out)
        if any(x.storage is out.storage and (x.offset, x.strides, x.shape) != (out.offset, out.strides, out.shape)
               for x in (a, b, c)):  # another view of out's memory: threads would read what others wrote
            result = _contiguous(out.size, out.storage.dtype, out.shape)
            self.mul_add(a, b, c, result)
            self.map("copy", result, out)
            return
        shape, out_strides = _layout(out)
        launch(
            cuda_mul_add.mul_add_kernel, _blocks(out.size, THREADS_PER_BLOCK), THREADS_PER_BLOCK,
            out.size, out.storage, out.offset, shape, out_strides,
            a.storage, a.offset, _strides_in(a, out), b.storage, b.offset, _strides_in(b, out),
            c.storage, c.offset, _strides_in(c, out),
        )

    def _reduce_launch(self, a: TensorData, out: TensorData, dim: int) -> tuple[int, int, tuple]:
        """``(blocks, threads, layout arguments)`` of a reduction of ``a`` along ``dim``."""
        length = a.shape[dim] if a.dims else 1
        threads = _power_of_two_at_least(length, REDUCE_THREADS)
        out_shape, out_strides = _layout(out)
        a_strides = _layout(a)[1]
        args = (out.size, out.storage, out.offset, out_shape, out_strides, _operand(a), a.offset, a_strides, dim, length)
        return _blocks(out.size, 1), threads, args

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        code = code_of(opcodes.REDUCE_CODES, op)
        if not reduce_has_work(a, dim, out):
            return
        if a.storage.dtype in _LOW or out.storage.dtype in _LOW:
            return self._through_float32(self.reduce, op, a, dim, out)
        acc = _accumulator(a.storage.dtype)
        start = acc(1 if code == opcodes.PROD else 0)
        blocks, threads, args = self._reduce_launch(a, out, dim)
        launch(kernels.reduce_kernel(REDUCE_THREADS, acc), blocks, threads, code, *args, start)

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        code = code_of(opcodes.ARG_REDUCE_CODES, op)
        if not reduce_has_work(a, dim, out):
            return
        if a.storage.dtype in _LOW:
            return self._through_float32(self.arg_reduce, op, a, dim, out)
        blocks, threads, args = self._reduce_launch(a, out, dim)
        launch(kernels.arg_reduce_kernel(REDUCE_THREADS, _accumulator(a.storage.dtype)), blocks, threads, code, *args)

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        if out.size == 0:
            return
        if a.storage.dtype in _LOW or b.storage.dtype in _LOW or out.storage.dtype in _LOW:
            return self._through_float32(self.matmul, a, b, out)
        batch = out.shape[:-2]
        n, m = out.shape[-2], out.shape[-1]
        batches = int(np.prod(batch, dtype=np.int64))
        a_strides = expand_strides(a.shape[:-2], a.strides[:-2], batch) + a.strides[-2:]
        b_strides = expand_strides(b.shape[:-2], b.strides[:-2], batch) + b.strides[-2:]
        dtype = out.storage.dtype
        acc = numba.from_dtype(dtype) if dtype.kind == "f" else numba.int64
        arguments = (
            batches, out.storage, out.offset, out.shape, out.strides,
            _operand(a), a.offset, a_strides, _operand(b), b.offset, b_strides, a.shape[-1],
        )
        if use_blocked_matmul and dtype.kind == "f":
            block_m, block_n, block_k, thread_m, thread_n = BLOCKED_MATMUL
            grid = (-(-m // block_n), -(-n // block_m), min(batches, MAX_BATCH_BLOCKS))
            if grid[0] * grid[1] * batches >= BLOCKED_MIN_BLOCKS:
                threads = check_blocking(*BLOCKED_MATMUL)
                launch(blocked_matmul_kernel(block_m, block_n, block_k, thread_m, thread_n, acc), grid, threads, *arguments)
                return
        tile = TILE
        grid = (-(-m // tile), -(-n // tile), min(batches, MAX_BATCH_BLOCKS))
        launch(kernels.matmul_kernel(tile, acc), grid, (tile, tile), *arguments)

    # ---- indexing primitives: atomics where several updates may meet ----

    def _as_dtype(self, td: TensorData, dtype: np.dtype) -> TensorData:
        """``td`` itself, or a contiguous device copy converted to ``dtype``."""
        if td.storage.dtype == dtype:
            return td
        converted = _contiguous(td.size, dtype, td.shape)
        self.map("copy", td, converted)
        return converted

    def _adding_into(self, out: TensorData, add: Callable[[TensorData], None]) -> None:
        """Run ``add(view)`` on ``out``, or on a widened copy of its whole storage when the GPU
        has no atomic add for its dtype (float16, bfloat16, uint8, bool); the copy is then cast back."""
        if out.storage.dtype in _ATOMIC:
            add(out)
            return
        whole = TensorData(out.storage, (out.storage.size,))
        wide = _contiguous(whole.size, _wider(out.storage.dtype), whole.shape)
        self.map("copy", whole, wide)
        add(TensorData(wide.storage, out.shape, out.strides, out.offset))
        self.map("copy", wide, whole)

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        if out.size == 0:
            return

        def add(target: TensorData) -> None:
            values = self._as_dtype(src, target.storage.dtype)
            shape, out_strides = _layout(target)
            blocks = _blocks(target.size, THREADS_PER_BLOCK)
            launch(
                kernels.accumulate_kernel, blocks, THREADS_PER_BLOCK,
                target.size, target.storage, target.offset, shape, out_strides,
                values.storage, values.offset, _strides_in(values, target),
            )

        self._adding_into(out, add)

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        if out.size == 0:
            return
        shape, out_strides = _layout(out)
        blocks = _blocks(out.size, THREADS_PER_BLOCK)
        target = _operand(out)
        launch(
            kernels.gather_kernel, blocks, THREADS_PER_BLOCK,
            out.size, dim, target, out.offset, shape, out_strides,
            _operand(a), a.offset, _layout(a)[1], index.storage, index.offset, _layout(index)[1],
        )

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        if index.size == 0:
            return

        def add(target: TensorData) -> None:
            values = self._as_dtype(src, target.storage.dtype)
            shape = _layout(index)[0]
            blocks = _blocks(index.size, THREADS_PER_BLOCK)
            launch(
                kernels.scatter_add_kernel, blocks, THREADS_PER_BLOCK,
                index.size, dim, target.storage, target.offset, _layout(target)[1], shape,
                values.storage, values.offset, _layout(values)[1], index.storage, index.offset, _layout(index)[1],
            )

        self._adding_into(out, add)

    # ---- fused ops ----

    def log_softmax(self, a: TensorData, out: TensorData) -> None:
        """One launch (:mod:`.cuda_log_softmax`), the primitives' results bit for bit; 16-bit floats by the primitives."""
        if out.size == 0:
            return
        dtype = out.storage.dtype
        if a.storage.dtype in _LOW or dtype in _LOW:
            log_softmax_by_primitives(self, a, out)
            return
        rows, width = a.shape
        kernel = cuda_log_softmax.log_softmax_kernel(REDUCE_THREADS, _accumulator(dtype), numba.from_dtype(dtype))
        launch(kernel, _blocks(rows, 1), _power_of_two_at_least(width, REDUCE_THREADS),
               rows, width, out.storage, out.offset, out.strides, a.storage, a.offset, a.strides)

    # ---- fused optimizer updates (:class:`~.base.OptimizerKernels`): one launch per parameter ----

    def adam_step(self, param: TensorData, grad: TensorData, exp_avg: TensorData, exp_avg_sq: TensorData,
                  max_exp_avg_sq: Optional[TensorData], step: AdamStep) -> None:
        blocks = _blocks(param.size, THREADS_PER_BLOCK)
        cuda_optim.adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, blocks, THREADS_PER_BLOCK)

    def sgd_step(self, param: TensorData, grad: TensorData, momentum_buffer: Optional[TensorData], step: SgdStep) -> None:
        cuda_optim.sgd_step(param, grad, momentum_buffer, step, _blocks(param.size, THREADS_PER_BLOCK), THREADS_PER_BLOCK)
