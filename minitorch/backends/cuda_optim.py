r"""Adam's and SGD's updates of one parameter in one kernel launch: the cuda backend's
:class:`~.base.OptimizerKernels`.

Written with tensor ops (course task 6.2), an Adam step is about a dozen ops per parameter:
on a GPU each is a kernel launch from Python (tens of microseconds) and a new temporary on
the device, for a few microseconds of work. Here one launch updates the parameter and its
state, each element read and written once by its own thread:

.. math::
    m \leftarrow \beta_1 m + (1-\beta_1) g,\qquad v \leftarrow \beta_2 v + (1-\beta_2) g^2,\qquad
    \theta \leftarrow \theta - \alpha_t \frac{m}{\sqrt{v}/c_t + \epsilon}

The arithmetic is that of :mod:`.cpu_optim` (and of the tensor ops, which are PyTorch's), in
the same order and in the parameter's dtype: the step's numbers arrive as scalars of that dtype,
and the multiply-adds PyTorch fuses are fused here too (:func:`.fused_multiply_add.fma`, which the
simulator computes exactly in Python). What a GPU's compiler fuses besides may still differ in the
last bit.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from numba import cuda

from ..tensor_data import TensorData
from . import cpu_optim
from .base import AdamStep, SgdStep
from .cpu_optim import DECOUPLED_DECAY, LERP_SWITCH, adam_weight_decay
from .fused_multiply_add import fma
from .cuda_launch import launch

# the per-element rules of the cpu kernels (their Python source), compiled for the device:
# the gradient Adam's moments take, and the direction an SGD step descends
adam_gradient = cuda.jit(device=True)(cpu_optim.adam_gradient.py_func)
sgd_direction = cuda.jit(device=True)(cpu_optim.sgd_direction.py_func)


@cuda.jit
def adam_kernel(
    size: int, param: Any, grad: Any, exp_avg: Any, exp_avg_sq: Any, max_exp_avg_sq: Any,
    one_minus_beta1: Any, one_minus_beta1_less_one: Any, beta2: Any, one_minus_beta2: Any, eps: Any, step_size: Any,
    correction: Any, weight_decay: Any, decay: int, amsgrad: bool, maximize: bool,
) -> None:
    """One Adam step of ``size`` contiguous elements (``max_exp_avg_sq`` only read with ``amsgrad``)."""
    for i in range(cuda.grid(1), size, cuda.gridsize(1)):
        p = param[i]
        g = adam_gradient(grad[i], p, weight_decay, decay, maximize)
        m = exp_avg[i]
        if abs(one_minus_beta1) < LERP_SWITCH:  # m.lerp_(g, 1 - beta1)
            m = fma(one_minus_beta1, g - m, m)
        else:
            m = fma(one_minus_beta1_less_one, g - m, g)
        exp_avg[i] = m
        second = fma(one_minus_beta2 * g, g, exp_avg_sq[i] * beta2)  # v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        exp_avg_sq[i] = second
        if amsgrad:  # the running maximum of v, NaN kept as the tensor op `maximum` keeps it
            top = max_exp_avg_sq[i]
            second = top if (top > second or top != top) else second
            max_exp_avg_sq[i] = second
        if decay == DECOUPLED_DECAY:
            p = p * weight_decay
        param[i] = p + (-step_size * m) / (math.sqrt(second) / correction + eps)


@cuda.jit
def sgd_kernel(size: int, param: Any, grad: Any, weight_decay: Any, neg_lr: Any, decay: bool, maximize: bool) -> None:
    """One SGD step without momentum of ``size`` contiguous elements."""
    for i in range(cuda.grid(1), size, cuda.gridsize(1)):
        p = param[i]
        param[i] = fma(sgd_direction(grad[i], p, weight_decay, decay, maximize), neg_lr, p)


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
            b = fma(direction, one_minus_dampening, buffer[i] * momentum)
        else:
            b = buffer[i] * momentum + direction
        buffer[i] = b
        if nesterov:
            param[i] = fma(fma(b, momentum, direction), neg_lr, p)
        else:
            param[i] = fma(b, neg_lr, p)


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
        number(1 - step.beta1), number(1 - step.beta1) - number(1), number(step.beta2), number(1 - step.beta2),
        number(step.eps),
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
