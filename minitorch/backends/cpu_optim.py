r"""Adam's and SGD's updates of one parameter in one pass: the CPU's :class:`~.base.OptimizerKernels`.

.. math::
    m \leftarrow \beta_1 m + (1-\beta_1) g,\qquad v \leftarrow \beta_2 v + (1-\beta_2) g^2,\qquad
    \theta \leftarrow \theta - \alpha_t \frac{m}{\sqrt{v}/c_t + \epsilon}

with :math:`\alpha_t = \gamma / (1-\beta_1^t)` and :math:`c_t = \sqrt{1-\beta_2^t}` (the
caller's ``step_size`` and ``bias_correction2_sqrt``). Written with tensor ops (course task
6.2) the update is about a dozen ops per parameter, each a pass over memory and a few
microseconds of Python: on a small model that is most of a training step. Here each element is
read and written once.

The arithmetic is the tensor ops', one operation at a time, in the same order and in the
parameter's dtype (every number rounded to it first, as a Python number is when an op meets a
tensor), so the results are those of the tensor-op update, bit for bit. Those are PyTorch's:
``m.lerp_(g, 1 - beta1)``, ``v.mul_(beta2).addcmul_(g, g, value=1 - beta2)`` and
``p.addcdiv_(m, denom, value=-step_size)``, where the ``lerp`` and the ``addcmul`` end in a fused
multiply-add (:func:`.fused_multiply_add.fma`, one rounding) and nothing else is fused.

SGD (:func:`sgd_step`) is the same idea for ``param.add_(grad, alpha=-lr)`` and the momentum
buffer's update: two or three tensor ops, each writing a temporary, become one pass. Each
``add_(x, alpha=a)`` is one fused multiply-add, as in PyTorch.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from numba import njit, prange

from ..tensor_data import TensorData
from . import kernel_cache
from .base import AdamStep, SgdStep
from .cpu_kernels import KERNEL_OPTIONS, launch, prange_only, serial_twin
from .fused_multiply_add import fma

# cached under a digest of this file's source (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: the places of the step's numbers in ``hyper`` (an array of the parameter's dtype)
BETA1, ONE_MINUS_BETA1, BETA2, ONE_MINUS_BETA2, EPS, STEP_SIZE, BIAS_CORRECTION2_SQRT = range(7)
#: the weight decay factor: ``g + weight_decay * theta`` (Adam), or the shrink factor
#: ``1 - lr * weight_decay`` applied to ``theta`` first (AdamW)
WEIGHT_DECAY = 7
#: :math:`(1 - \beta_1) - 1`, computed in the parameter's dtype: the ``lerp`` weight less one
ONE_MINUS_BETA1_LESS_ONE = 8
HYPER_SIZE = 9
#: how ``weight_decay`` enters: not at all, into the gradient, or shrinking the parameter
NO_DECAY, COUPLED_DECAY, DECOUPLED_DECAY = range(3)
#: ``lerp`` switches formula at this :math:`|w|`, as PyTorch's (so that a weight of 1 gives the end exactly)
LERP_SWITCH = 0.5


#: elements updated together: each step of the update is a loop of its own over a chunk (a
#: loop that writes one array and reads two or three is one LLVM vectorises; a single loop
#: writing three arrays and reading five is not, for the checks that they do not overlap)
CHUNK = 512


@njit(inline="always", **KERNEL_OPTIONS)
def adam_gradient(g, p, weight_decay, decay: int, maximize: bool):  # type: ignore[no-untyped-def]
    """The gradient the moments take: negated to maximize, plus ``weight_decay * p`` (Adam's decay,
    ``g.add(p, alpha=weight_decay)``: one fused multiply-add)."""
    g = -g if maximize else g
    return fma(p, weight_decay, g) if decay == COUPLED_DECAY else g


@njit(inline="always", **KERNEL_OPTIONS)
def adam_chunk(
    start: int, stop: int, param: np.ndarray, grad: np.ndarray, exp_avg: np.ndarray, exp_avg_sq: np.ndarray,
    max_exp_avg_sq: np.ndarray, hyper: np.ndarray, decay: int, amsgrad: bool, maximize: bool,
) -> None:
    """Elements ``start <= i < stop``: the moments, then the parameter (``max_exp_avg_sq`` only with ``amsgrad``)."""
    p, g = param[start:stop], grad[start:stop]
    m, v = exp_avg[start:stop], exp_avg_sq[start:stop]
    weight, beta2, one_minus_beta2 = hyper[ONE_MINUS_BETA1], hyper[BETA2], hyper[ONE_MINUS_BETA2]
    eps, step_size, correction = hyper[EPS], hyper[STEP_SIZE], hyper[BIAS_CORRECTION2_SQRT]
    weight_decay = hyper[WEIGHT_DECAY]
    if abs(weight) < LERP_SWITCH:  # m.lerp_(g, weight): m + weight (g - m)
        for j in range(stop - start):
            m[j] = fma(weight, adam_gradient(g[j], p[j], weight_decay, decay, maximize) - m[j], m[j])
    else:  # g + (weight - 1)(g - m), which gives g at weight 1
        weight_minus_one = hyper[ONE_MINUS_BETA1_LESS_ONE]
        for j in range(stop - start):
            gj = adam_gradient(g[j], p[j], weight_decay, decay, maximize)
            m[j] = fma(weight_minus_one, gj - m[j], gj)
    for j in range(stop - start):  # v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        gj = adam_gradient(g[j], p[j], weight_decay, decay, maximize)
        v[j] = fma(one_minus_beta2 * gj, gj, v[j] * beta2)
    second = v
    if amsgrad:  # the running maximum of v, NaN kept as the tensor op `maximum` keeps it
        top = max_exp_avg_sq[start:stop]
        for j in range(stop - start):
            top[j] = top[j] if (top[j] > v[j] or top[j] != top[j]) else v[j]
        second = top
    for j in range(stop - start):  # p.addcdiv_(m, sqrt(v) / correction + eps, value=-step_size)
        pj = p[j] * weight_decay if decay == DECOUPLED_DECAY else p[j]
        p[j] = pj + (-step_size * m[j]) / (np.sqrt(second[j]) / correction + eps)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def adam_kernel(
    param: np.ndarray, grad: np.ndarray, exp_avg: np.ndarray, exp_avg_sq: np.ndarray, max_exp_avg_sq: np.ndarray,
    hyper: np.ndarray, decay: int, amsgrad: bool, maximize: bool,
) -> None:
    """One Adam step over contiguous buffers of one dtype and ``param.size`` elements each
    (``max_exp_avg_sq`` only read with ``amsgrad``); ``hyper`` holds the numbers at :data:`BETA1`..."""
    size = param.size
    for chunk in prange((size + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        adam_chunk(start, min(start + CHUNK, size), param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, hyper,
                   decay, amsgrad, maximize)


#: :func:`adam_kernel` without threads, for small parameters (see :func:`.cpu_kernels.serial_twin`)
adam_kernel_serial = serial_twin(adam_kernel, **KERNEL_OPTIONS)


def adam_weight_decay(step: AdamStep) -> tuple[int, float]:
    """How ``step``'s weight decay enters (:data:`NO_DECAY`, :data:`COUPLED_DECAY` or
    :data:`DECOUPLED_DECAY`) and its factor: ``weight_decay`` added to the gradient, or the shrink
    ``1 - lr * weight_decay`` (AdamW); 0 (unread) without decay. The cuda kernels take the same."""
    if step.weight_decay == 0:
        return NO_DECAY, 0.0
    if step.decoupled:
        return DECOUPLED_DECAY, 1 - step.lr * step.weight_decay
    return COUPLED_DECAY, step.weight_decay


def adam_step(param: TensorData, grad: TensorData, exp_avg: TensorData, exp_avg_sq: TensorData,
              max_exp_avg_sq: Optional[TensorData], step: AdamStep) -> None:
    """:meth:`.base.OptimizerKernels.adam_step` on contiguous float32 or float64 buffers."""
    if param.size == 0:
        return
    dtype = param.storage.dtype
    hyper = np.empty(HYPER_SIZE, dtype)  # each number rounded to the parameter's dtype, once
    hyper[BETA1], hyper[ONE_MINUS_BETA1] = step.beta1, 1 - step.beta1
    hyper[ONE_MINUS_BETA1_LESS_ONE] = hyper[ONE_MINUS_BETA1] - hyper.dtype.type(1)
    hyper[BETA2], hyper[ONE_MINUS_BETA2] = step.beta2, 1 - step.beta2
    hyper[EPS], hyper[STEP_SIZE], hyper[BIAS_CORRECTION2_SQRT] = step.eps, step.step_size, step.bias_correction2_sqrt
    decay, hyper[WEIGHT_DECAY] = adam_weight_decay(step)
    amsgrad = max_exp_avg_sq is not None
    running_max = max_exp_avg_sq.buffer if max_exp_avg_sq is not None else exp_avg_sq.buffer  # unread without amsgrad
    launch(param.size, adam_kernel, adam_kernel_serial, param.buffer, grad.buffer, exp_avg.buffer, exp_avg_sq.buffer,
           running_max, hyper, decay, amsgrad, step.maximize)


# ---- SGD ----

#: the places of an SGD step's numbers in ``hyper`` (an array of the parameter's dtype)
SGD_WEIGHT_DECAY, SGD_MOMENTUM, SGD_ONE_MINUS_DAMPENING, SGD_NEG_LR = range(4)
SGD_HYPER_SIZE = 4


@njit(inline="always", **KERNEL_OPTIONS)
def sgd_direction(g, p, weight_decay, decay: bool, maximize: bool):  # type: ignore[no-untyped-def]
    """The direction the step descends: the gradient, negated to maximize, plus ``p * weight_decay``
    (``g.add(p, alpha=weight_decay)``: one fused multiply-add)."""
    g = -g if maximize else g
    return fma(p, weight_decay, g) if decay else g


# Each ``x.add_(y, alpha=a)`` below is ``fma(y, a, x)``, with ``a`` rounded to the dtype, as
# PyTorch computes it. Without momentum and with it are two kernels: a plain SGD step (a first
# training step, say) then compiles only the first, a loop of a few lines.


@njit(inline="always", **KERNEL_OPTIONS)
def sgd_chunk(start: int, stop: int, param: np.ndarray, grad: np.ndarray, hyper: np.ndarray, decay: bool,
              maximize: bool) -> None:
    """Elements ``start <= i < stop`` of a step without momentum: ``p.add_(d, alpha=-lr)``."""
    p, g = param[start:stop], grad[start:stop]
    weight_decay, neg_lr = hyper[SGD_WEIGHT_DECAY], hyper[SGD_NEG_LR]
    for j in range(stop - start):
        p[j] = fma(sgd_direction(g[j], p[j], weight_decay, decay, maximize), neg_lr, p[j])


@njit(inline="always", **KERNEL_OPTIONS)
def sgd_momentum_chunk(
    start: int, stop: int, param: np.ndarray, grad: np.ndarray, buffer: np.ndarray, hyper: np.ndarray,
    decay: bool, first: bool, dampened: bool, nesterov: bool, maximize: bool,
) -> None:
    """Elements ``start <= i < stop`` of a step with momentum: the buffer
    (``b.mul_(momentum).add_(d, alpha=1 - dampening)``), then the parameter (``dampened``:
    ``1 - dampening`` is not 1, so the direction is multiplied by it)."""
    p, g, b = param[start:stop], grad[start:stop], buffer[start:stop]
    weight_decay, momentum = hyper[SGD_WEIGHT_DECAY], hyper[SGD_MOMENTUM]
    one_minus_dampening, neg_lr = hyper[SGD_ONE_MINUS_DAMPENING], hyper[SGD_NEG_LR]
    if first:
        for j in range(stop - start):
            b[j] = sgd_direction(g[j], p[j], weight_decay, decay, maximize)
    elif dampened:
        for j in range(stop - start):
            b[j] = fma(sgd_direction(g[j], p[j], weight_decay, decay, maximize), one_minus_dampening, b[j] * momentum)
    else:
        for j in range(stop - start):
            b[j] = b[j] * momentum + sgd_direction(g[j], p[j], weight_decay, decay, maximize)
    if nesterov:  # d.add(b, alpha=momentum), then the step
        for j in range(stop - start):
            direction = fma(b[j], momentum, sgd_direction(g[j], p[j], weight_decay, decay, maximize))
            p[j] = fma(direction, neg_lr, p[j])
    else:
        for j in range(stop - start):
            p[j] = fma(b[j], neg_lr, p[j])


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def sgd_kernel(param: np.ndarray, grad: np.ndarray, hyper: np.ndarray, decay: bool, maximize: bool) -> None:
    """One SGD step without momentum over contiguous buffers of one dtype and ``param.size`` elements
    each; ``hyper`` holds the numbers at :data:`SGD_WEIGHT_DECAY`..."""
    size = param.size
    for chunk in prange((size + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        sgd_chunk(start, min(start + CHUNK, size), param, grad, hyper, decay, maximize)


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def sgd_momentum_kernel(
    param: np.ndarray, grad: np.ndarray, buffer: np.ndarray, hyper: np.ndarray,
    decay: bool, first: bool, dampened: bool, nesterov: bool, maximize: bool,
) -> None:
    """:func:`sgd_kernel` with momentum, the ``buffer`` updated too (or, ``first``, made)."""
    size = param.size
    for chunk in prange((size + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        sgd_momentum_chunk(start, min(start + CHUNK, size), param, grad, buffer, hyper, decay, first, dampened,
                           nesterov, maximize)


#: the kernels above without threads, for small parameters (see :func:`.cpu_kernels.serial_twin`)
sgd_kernel_serial = serial_twin(sgd_kernel, **KERNEL_OPTIONS)
sgd_momentum_kernel_serial = serial_twin(sgd_momentum_kernel, **KERNEL_OPTIONS)


def sgd_step(param: TensorData, grad: TensorData, momentum_buffer: Optional[TensorData], step: SgdStep) -> None:
    """:meth:`.base.OptimizerKernels.sgd_step` on contiguous float32 or float64 buffers."""
    if param.size == 0:
        return
    hyper = np.empty(SGD_HYPER_SIZE, param.storage.dtype)  # each number rounded to the parameter's dtype, once
    hyper[SGD_WEIGHT_DECAY], hyper[SGD_MOMENTUM] = step.weight_decay, step.momentum
    hyper[SGD_ONE_MINUS_DAMPENING], hyper[SGD_NEG_LR] = 1 - step.dampening, -step.lr
    decay = step.weight_decay != 0
    if momentum_buffer is None:
        launch(param.size, sgd_kernel, sgd_kernel_serial, param.buffer, grad.buffer, hyper, decay, step.maximize)
        return
    launch(param.size, sgd_momentum_kernel, sgd_momentum_kernel_serial, param.buffer, grad.buffer,
           momentum_buffer.buffer, hyper, decay, step.first, 1 - step.dampening != 1, step.nesterov, step.maximize)
