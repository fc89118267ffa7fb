"""What :mod:`.gradcheck` checks of a function's derivatives besides their values: that the
backward scales with the output gradient, that it copes with undefined output gradients, and
that forward AD treats an undefined tangent as a zero one.

Each check returns the failure, a message, or None when the property holds; the caller turns
a failure into a ``GradcheckError``.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..creation import zeros_like
from ..tensor import Tensor
from . import grad as autograd_grad
from .jacobians import as_tuple, forward_tangents, like, requires_grad, to_numpy

#: the two ways a backward that cannot take an undefined (None) output gradient fails
_UNDEFINED_GRAD_FAILURES = (RuntimeError, TypeError)


def backward_multiplies_grad_output(outputs: Sequence[Tensor], diff_inputs: Sequence[Tensor]) -> Optional[str]:
    """Zero output gradients must give zero (or no) input gradients, of each input's dtype,
    device and size."""
    grads = autograd_grad(list(outputs), list(diff_inputs), [zeros_like(o) for o in outputs], allow_unused=True)
    for grad, inp in zip(grads, diff_inputs):
        if grad is None:
            continue
        if not (to_numpy(grad) == 0).all():
            return "backward not multiplied by grad_output"
        if grad.dtype != inp.dtype:
            return "grad is incorrect type"
        if grad.device != inp.device:
            return "grad is incorrect device"
        if grad.shape != inp.shape:
            return "grad is incorrect size"
    return None


def _warn_new_check() -> None:
    warnings.warn('Backwards compatibility: New undefined gradient support checking feature is enabled by default, '
                  'but it may break existing callers of this function. If this is true for you, you can call this '
                  'function with "check_undefined_grad=False" to disable the feature', stacklevel=5)


def backward_handles_undefined_grads(func: Callable[..., Any], inputs: Sequence[Any],
                                     diff_inputs: Sequence[Tensor]) -> Optional[str]:
    """With one output's gradient undefined at a time (the others zero), backward must run and
    give zero (or no) input gradients.

    minitorch's engine represents an undefined gradient as no gradient at all: an output left
    out of the backward pass, and None in that output's slot for an op with several outputs. So
    the case of every output gradient undefined runs no backward and has nothing to check; one
    output at a time is checked when there are several."""
    count = len([o for o in as_tuple(func(*inputs)) if requires_grad(o)])
    for undefined in range(count if count > 1 else 0):
        outputs = [o for o in as_tuple(func(*inputs)) if requires_grad(o)]
        kept = [o for position, o in enumerate(outputs) if position != undefined]
        try:
            grads = autograd_grad(kept, list(diff_inputs), [zeros_like(o) for o in kept], allow_unused=True)
        except _UNDEFINED_GRAD_FAILURES as error:
            _warn_new_check()
            return ("Expected backward function to handle undefined output grads. A backward receives None for "
                    f"the gradient of an output that takes no part in the backward pass ({type(error).__name__}: "
                    f"{error})")
        if any(grad is not None and not (to_numpy(grad) == 0).all() for grad in grads):
            _warn_new_check()
            return "Expected all input grads to be undefined or zero when all output grads are undefined or zero."
    return None


def forward_handles_undefined_tangents(func: Callable[..., Any], inputs: Sequence[Any], positions: Sequence[int],
                                       directions: Sequence[np.ndarray]) -> Optional[str]:
    """An input without a tangent must give the outputs the tangents a zero tangent gives them
    (the other differentiable inputs carrying the tangents ``directions``)."""
    moving = {}
    for position, direction in zip(positions, directions):
        inp = inputs[position]
        moving[position] = like(direction.reshape(tuple(inp.shape)), inp.dtype, inp.device)
    for position in positions:
        with_zero = dict(moving)
        with_zero[position] = zeros_like(inputs[position].detach())
        without = {p: t for p, t in moving.items() if p != position}
        plain = list(inputs)
        plain[position] = inputs[position].detach()
        zero_tangents = forward_tangents(func, inputs, with_zero)
        no_tangents = forward_tangents(func, plain, without)
        for index, (got, expected) in enumerate(zip(zero_tangents, no_tangents)):
            if got is not None and expected is not None and not np.allclose(got, expected):
                return (f"Mismatch in tangent values for output with index: {index} when input: {inputs[position]} "
                        f"has an undefined tangent value. Got: {got} but expected: {expected}")
    return None
