r"""Adam's and SGD's updates of one parameter in one kernel launch: the cuda backend's
:class:`~.base.OptimizerKernels`.

Written with tensor ops (course task 6.2), an Adam step is about a dozen ops per parameter:
on a GPU each is a kernel launch from Python (tens of microseconds) and a new temporary on
the device, for a few microseconds of work. Here one launch updates the parameter and its
state, each element read and written once by its own thread:

.. math::
    m \leftarrow \beta_1 m + (1-\beta_1) g,\qquad v \leftarrow \beta_2 v + (1-\beta_2) g^2,\qquad
    \theta \leftarrow \theta - \alpha_t \frac{m}{\sqrt{v}/c_t + \epsilon}

The arithmetic is that of :mod:`.cpu_optim` (and of the tensor ops), in the same order and in
the parameter's dtype: the step's numbers arrive as scalars of that dtype. One difference
remains on a GPU: its compiler fuses a product and a sum into one multiply-add, rounded once,
so results may differ from the tensor ops' in the last bit (the simulator computes in Python
and matches them exactly).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from numba import cuda

from ..tensor_data import TensorData
from . import cpu_optim
from .base import AdamStep, SgdStep
from .cpu_optim import DECOUPLED_DECAY, adam_weight_decay
from .cuda_launch import launch

# the per-element rules of the cpu kernels (their Python source), compiled for the device:
# the gradient Adam's moments take, and the direction an SGD step descends
adam_gradient = cuda.jit(device=True)(cpu_optim.adam_gradient.py_func)
sgd_direction = cuda.jit(device=True)(cpu_optim.sgd_direction.py_func)


@cuda.jit
def adam_kernel(
    size: int, param: Any, grad: Any, exp_avg: Any, exp_avg_sq: Any, max_exp_avg_sq: Any,
    beta1: Any, one_minus_beta1: Any, beta2: Any, one_minus_beta2: Any, eps: Any, step_size: Any,
    correction: Any, weight_decay: Any, decay: int, amsgrad: bool, maximize: bool,
) -> None:
    """One Adam step of ``size`` contiguous elements (``max_exp_avg_sq`` only read with ``amsgrad``)."""
    for i in range(cuda.grid(1), size, cuda.gridsize(1)):
        p = param[i]
        g = adam_gradient(grad[i], p, weight_decay, decay, maximize)
        m = exp_avg[i] * beta1 + g * one_minus_beta1
        exp_avg[i] = m
        second = exp_avg_sq[i] * beta2 + (g * g) * one_minus_beta2
        exp_avg_sq[i] = second
        if amsgrad:  # the running maximum of v, NaN kept as the tensor op `maximum` keeps it
            top = max_exp_avg_sq[i]
            second = top if (top > second or top != top) else second
            max_exp_avg_sq[i] = second
        if decay == DECOUPLED_DECAY:
            p = p * weight_decay
        param[i] = p - (m / (math.sqrt(second) / correction + eps)) * step_size


@cuda.jit
def sgd_kernel(size: int, param: Any, grad: Any, weight_decay: Any, neg_lr: Any, decay: bool, maximize: bool) -> None:
    """One SGD step without momentum of ``size`` contiguous elements."""
    for i in range(cuda.grid(1), size, cuda.gridsize(1)):
        p = param[i]
        param[i] = p + sgd_direction(grad[i], p, weight_decay, decay, maximize) * neg_lr


@cuda.jit
def sgd_momentum_kernel(
    size: int, param: Any, grad: Any, buffer: Any, weight_decay: Any, momentum: Any, one_minus_dampening: Any,
    neg_lr: Any, decay: bool, first: bool, dampened: bool, nesterov: bool, maximize: bool,
) -> None:
    """:func:`sgd_kernel` with momentum: the ``buffer`` (``first``: made from the direction), then the parameter."""
    for i in range(cuda.grid(1), size, cuda.gridsize(1)):
        p = param[i]
        direction = sgd_direction(grad[i], p, weight_decay, decay, maximize)
        if first:
            b = direction
        elif dampened:
            b = buffer[i] * momentum + direction * one_minus_dampening
        else:
            b = buffer[i] * momentum + direction
        buffer[i] = b
        if nesterov:
            param[i] = p + (direction + b * momentum) * neg_lr
        else:
            param[i] = p + b * neg_lr


def _buffer(td: TensorData) -> Any:
    """The device array of a contiguous view, from its first element."""
    return td.storage[td.offset : td.offset + td.size] if td.offset else td.storage


def adam_step(param: TensorData, grad: TensorData, exp_avg: TensorData, exp_avg_sq: TensorData,
              max_exp_avg_sq: Optional[TensorData], step: AdamStep, blocks: int, threads: int) -> None:
    """:meth:`.base.OptimizerKernels.adam_step` on contiguous float32 or float64 device views,
    launched on ``blocks`` x ``threads``."""
    if param.size == 0:
        return
    number = param.storage.dtype.type  # each of the step's numbers rounded to the parameter's dtype, once
    decay, weight_decay = adam_weight_decay(step)
    amsgrad = max_exp_avg_sq is not None
    running_max = _buffer(max_exp_avg_sq if max_exp_avg_sq is not None else exp_avg_sq)  # unread without amsgrad
    launch(
        adam_kernel, blocks, threads,
        param.size, _buffer(param), _buffer(grad), _buffer(exp_avg), _buffer(exp_avg_sq), running_max,
        number(step.beta1), number(1 - step.beta1), number(step.beta2), number(1 - step.beta2), number(step.eps),
        number(step.step_size), number(step.bias_correction2_sqrt), number(weight_decay), decay, amsgrad, step.maximize,
    )


def sgd_step(param: TensorData, grad: TensorData, momentum_buffer: Optional[TensorData], step: SgdStep,
             blocks: int, threads: int) -> None:
    """:meth:`.base.OptimizerKernels.sgd_step` on contiguous float32 or float64 device views."""
    if param.size == 0:
        return
    number = param.storage.dtype.type
    weight_decay, neg_lr, decay = number(step.weight_decay), number(-step.lr), step.weight_decay != 0
    if momentum_buffer is None:
        launch(sgd_kernel, blocks, threads, param.size, _buffer(param), _buffer(grad), weight_decay, neg_lr, decay, step.maximize)
        return
    launch(
        sgd_momentum_kernel, blocks, threads,
        param.size, _buffer(param), _buffer(grad), _buffer(momentum_buffer), weight_decay, number(step.momentum),
        number(1 - step.dampening), neg_lr, decay, step.first, 1 - step.dampening != 1, step.nesterov, step.maximize,
    )
