"""Numba's threading layer, and a lock around the cpu kernels on the one layer that needs it.

Numba runs ``prange`` loops on a *threading layer* that it picks once per process, the
first time a parallel kernel runs or anything asks for it (``numba.get_num_threads()``):

* ``NUMBA_THREADING_LAYER`` (read into ``numba.config.THREADING_LAYER``) names a layer,
  ``'tbb'``, ``'omp'`` or ``'workqueue'``, or a property it must have: ``'threadsafe'``
  (tbb or omp), ``'safe'`` (tbb), ``'forksafe'``;
* left at ``'default'``, Numba takes the first layer that loads, in the order of
  ``NUMBA_THREADING_LAYER_PRIORITY`` (tbb, omp, workqueue): a machine with neither TBB nor
  OpenMP gets ``workqueue``;
* ``numba.threading_layer()`` names the layer picked.

With tbb or omp, several Python threads may launch parallel kernels at once. ``workqueue``
is not thread-safe: a launch while another thread's kernel runs aborts the process
("Concurrent access has been detected"). On it the cpu backend runs each primitive under
one lock, so threads' kernels take turns (each still spread over every core).
"""

from __future__ import annotations

import threading
from typing import Optional

import numba

from ..tensor_data import TensorData
from .base import AdamStep, ConvGeometry, PoolGeometry
from .cpu import CpuBackend

#: the layers that several Python threads may enter at once
THREADSAFE_LAYERS = ("tbb", "omp")


def threading_layer() -> str:
    """The layer Numba runs ``prange`` loops on in this process (picked now if not yet)."""
    numba.get_num_threads()  # makes Numba pick its layer and start the layer's threads
    return numba.threading_layer()


class SerialisedCpuBackend(CpuBackend):
    """:class:`CpuBackend` with each primitive run under one process-wide lock."""

    # re-entrant: a float16 op calls the same primitive again in float32
    _launch_lock = threading.RLock()

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().map(op, a, out)

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().zip(op, a, b, out)

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        with self._launch_lock:
            super().reduce(op, a, dim, out)

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        with self._launch_lock:
            super().arg_reduce(op, a, dim, out)

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().matmul(a, b, out)

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().accumulate(src, out)

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().gather(a, dim, index, out)

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().scatter_add(src, dim, index, out)

    def log_softmax(self, a: TensorData, out: TensorData) -> None:
        with self._launch_lock:
            super().log_softmax(a, out)

    def conv2d(self, x: TensorData, w: TensorData, bias: Optional[TensorData], geometry: ConvGeometry,
               out: TensorData) -> None:
        with self._launch_lock:
            super().conv2d(x, w, bias, geometry, out)

    def conv2d_input_grad(self, grad: TensorData, w: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
        with self._launch_lock:
            super().conv2d_input_grad(grad, w, geometry, out)

    def conv2d_weight_grad(self, grad: TensorData, x: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
        with self._launch_lock:
            super().conv2d_weight_grad(grad, x, geometry, out)

    def max_pool2d(self, x: TensorData, geometry: PoolGeometry, values: TensorData, indices: TensorData) -> None:
        with self._launch_lock:
            super().max_pool2d(x, geometry, values, indices)

    def adam_step(self, param: TensorData, grad: TensorData, exp_avg: TensorData, exp_avg_sq: TensorData,
                  max_exp_avg_sq: Optional[TensorData], step: AdamStep) -> None:
        with self._launch_lock:
            super().adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step)


def cpu_backend() -> CpuBackend:
    """The cpu backend for this process: serialised where Numba's layer is not thread-safe."""
    return CpuBackend() if threading_layer() in THREADSAFE_LAYERS else SerialisedCpuBackend()
