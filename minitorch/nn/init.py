r"""Initialization schemes: fill a tensor in place (under ``no_grad``) and return it.

Random values come from minitorch's generator (:func:`minitorch.manual_seed` makes them
repeatable). The scaled schemes keep the variance of activations (Xavier/Glorot) or of
gradients (Kaiming/He) roughly constant from layer to layer:

* Xavier: :math:`\mathrm{std} = \text{gain}\sqrt{2 / (\text{fan\_in} + \text{fan\_out})}`
* Kaiming: :math:`\mathrm{std} = \text{gain} / \sqrt{\text{fan}}`

and a uniform distribution on :math:`[-\sqrt{3}\,\mathrm{std}, \sqrt{3}\,\mathrm{std}]` has that std.
For a weight of shape ``(out, in, *kernel)``, :math:`\text{fan\_in} = \text{in}\cdot\prod\text{kernel}`
and :math:`\text{fan\_out} = \text{out}\cdot\prod\text{kernel}`.
"""

from __future__ import annotations

import math
import warnings
from typing import Optional, Union

import numpy as np

from .. import dtypes
from ..autograd import no_grad
from ..creation import from_numpy, randn
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_", "orthogonal_",
    "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]

#: the std of a uniform distribution on [-1, 1] times this is 1
UNIFORM_STD_FACTOR = math.sqrt(3.0)
#: leaky_relu's default negative slope in calculate_gain
DEFAULT_LEAKY_SLOPE = 0.01
#: SELU's gain (chosen so SELU networks self-normalize)
SELU_GAIN = 3.0 / 4
TANH_GAIN = 5.0 / 3
LINEAR_LIKE = (
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid",
)
FAN_MODES = ("fan_in", "fan_out")


def calculate_gain(nonlinearity: str, param: Optional[Union[int, float]] = None) -> float:
    r"""The gain that keeps activations' scale after ``nonlinearity``: e.g. ReLU :math:`\sqrt{2}`,
    tanh :math:`5/3`, leaky ReLU :math:`\sqrt{2 / (1 + \text{slope}^2)}`."""
    if nonlinearity in LINEAR_LIKE:
        return 1.0
    if nonlinearity == "tanh":
        return TANH_GAIN
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = DEFAULT_LEAKY_SLOPE
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return SELU_GAIN
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of shape ``(out, in, *kernel)``."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    # BEGIN SOLUTION 4.6
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field
    # END SOLUTION


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in FAN_MODES:
        raise ValueError(f"Mode {mode} not supported, please use one of {list(FAN_MODES)}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _overwrite(tensor: Tensor, values: Tensor) -> Tensor:
    """Copy ``values`` into ``tensor`` without recording the graph; returns ``tensor``."""
    with no_grad():
        tensor.copy_(values)
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    r"""Fill with samples of :math:`\mathcal{U}(a, b)` (drawn in float64 on the host, then rounded once).

    As in PyTorch, this is :meth:`Tensor.uniform_` without the graph. The scaling happens in
    NumPy, so initialising a float32 model compiles no float64 kernel.
    """
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    r"""Fill with samples of :math:`\mathcal{N}(\text{mean}, \text{std}^2)`: :meth:`Tensor.normal_` without the graph."""
    with no_grad():
        return tensor.normal_(mean, std)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0) -> Tensor:
    r"""Fill with :math:`\mathcal{N}(\text{mean}, \text{std}^2)` samples redrawn until they lie in :math:`[a, b]`."""
    if not a < b:
        raise ValueError(f"trunc_normal_ needs a < b, got a={a}, b={b}")
    values = np.empty(tuple(tensor.shape), dtype=np.float64).reshape(-1)
    todo = np.arange(values.size)
    while todo.size:  # rejection sampling: each round keeps the draws inside [a, b]
        draws = randn(todo.size, dtype=dtypes.float64).numpy() * std + mean
        inside = (draws >= a) & (draws <= b)
        values[todo[inside]] = draws[inside]
        todo = todo[~inside]
    return _overwrite(tensor, from_numpy(values.reshape(tuple(tensor.shape))))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    return _overwrite(tensor, from_numpy(np.eye(rows, cols)))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    r"""Glorot uniform: :math:`\mathcal{U}(-\sqrt{3}\,\sigma, \sqrt{3}\,\sigma)`, :math:`\sigma = \text{gain}\sqrt{2/(\text{fan\_in}+\text{fan\_out})}`."""
    # BEGIN SOLUTION 4.6
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = UNIFORM_STD_FACTOR * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound)
    # END SOLUTION


def xavier_normal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    r"""Glorot normal: :math:`\mathcal{N}(0, \sigma^2)`, :math:`\sigma = \text{gain}\sqrt{2/(\text{fan\_in}+\text{fan\_out})}`."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> Optional[float]:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    # BEGIN SOLUTION 4.6
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)
    # END SOLUTION


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> Tensor:
    r"""He uniform: :math:`\mathcal{U}(-\sqrt{3}\,\sigma, \sqrt{3}\,\sigma)`, :math:`\sigma = \text{gain}/\sqrt{\text{fan}}`.

    ``a`` is leaky ReLU's negative slope (used when ``nonlinearity='leaky_relu'``).
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return uniform_(tensor, -UNIFORM_STD_FACTOR * std, UNIFORM_STD_FACTOR * std)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> Tensor:
    r"""He normal: :math:`\mathcal{N}(0, \sigma^2)`, :math:`\sigma = \text{gain}/\sqrt{\text{fan}}`."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std)


def orthogonal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """Fill with a (semi-)orthogonal matrix from the QR decomposition of a Gaussian matrix, times ``gain``.

    A tensor with more than 2 dimensions is treated as ``(shape[0], rest flattened)``.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    gaussian = randn(rows, cols, dtype=dtypes.float64).numpy()
    if rows < cols:
        gaussian = gaussian.T
    q, r = np.linalg.qr(gaussian)
    q = q * np.sign(np.diag(r))  # make the decomposition unique: a uniform (Haar) orthogonal matrix
    if rows < cols:
        q = q.T
    return _overwrite(tensor, from_numpy(np.ascontiguousarray(q).reshape(tuple(tensor.shape)) * gain))
