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

from ..autograd import no_grad
from ..creation import empty_like, from_numpy, randperm
from ..generator import Generator
from ..linalg import qr
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
    "orthogonal_", "sparse_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
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
#: trunc_normal_ redraws whole normal fills when [a, b] holds more than this much of the mass
#: (uniform proposals with an acceptance test otherwise), PyTorch's switch
TRUNC_NORMAL_REDRAW_ABOVE = 0.3
#: dirac_ fills convolution weights of these ranks (1, 2 or 3 spatial dimensions)
DIRAC_DIMS = (3, 4, 5)


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


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with samples of :math:`\mathcal{U}(a, b)`: :meth:`Tensor.uniform_` without the graph."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with samples of :math:`\mathcal{N}(\text{mean}, \text{std}^2)`: :meth:`Tensor.normal_` without the graph."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
    generator: Optional[Generator] = None,
) -> Tensor:
    r""":math:`\mathcal{N}(\text{mean}, \text{std}^2)` restricted to :math:`[a, b]`, drawn as PyTorch draws it.

    When the interval holds more than ``TRUNC_NORMAL_REDRAW_ABOVE`` of the mass, the whole tensor is
    refilled with normals and the values outside are replaced until none is; otherwise uniform
    proposals on :math:`[a, b]` are accepted where :math:`\log u` is below the log density
    relative to its peak (the same fills of the same sizes, so a seed gives PyTorch's values).
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > TRUNC_NORMAL_REDRAW_ABOVE:
            _trunc_normal_by_redraws(tensor, mean, std, a, b, generator)
        else:
            _trunc_normal_by_rejection(tensor, mean, std, a, b, generator)
    return tensor


def _trunc_normal_by_redraws(tensor: Tensor, mean: float, std: float, a: float, b: float,
                             generator: Optional[Generator]) -> None:
    low, high = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()  # the bounds in the tensor's dtype
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        result = empty_like(result).normal_(mean, std, generator=generator).where(outside, result)
    if result is not tensor:
        tensor.copy_(result)


def _relative_log_density_(values: Tensor, mean: float, std: float, log_peak: float) -> Tensor:
    """In place, step by step in the tensor's dtype: the normal's log density less its peak's."""
    return values.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)


def _trunc_normal_by_rejection(tensor: Tensor, mean: float, std: float, a: float, b: float,
                               generator: Optional[Generator]) -> None:
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates, accept_draws = empty_like(tensor), empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)
    _relative_log_density_(candidates.copy_(tensor), mean, std, log_peak)
    pending = accept_draws.uniform_(generator=generator).log_().gt(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = candidates.where(pending, result)
        _relative_log_density_(candidates, mean, std, log_peak)
        pending = accept_draws.uniform_(generator=generator).log_().gt(candidates).where(pending, pending)
        if not pending.any():
            break
    tensor.copy_(result)


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


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight so the convolution passes its first input
    channels through (per group): a one at the kernel's centre of ``[out, in]`` for ``out == in``."""
    if tensor.dim() not in DIRAC_DIMS:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for group in range(groups):
            for channel in range(min(per_group, tensor.shape[1])):
                tensor[(group * per_group + channel, channel) + centre] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Optional[Generator] = None) -> Tensor:
    r"""Glorot uniform: :math:`\mathcal{U}(-\sqrt{3}\,\sigma, \sqrt{3}\,\sigma)`, :math:`\sigma = \text{gain}\sqrt{2/(\text{fan\_in}+\text{fan\_out})}`."""
    # BEGIN SOLUTION 4.6
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = UNIFORM_STD_FACTOR * std
    return uniform_(tensor, -bound, bound, generator)
    # END SOLUTION


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Optional[Generator] = None) -> Tensor:
    r"""Glorot normal: :math:`\mathcal{N}(0, \sigma^2)`, :math:`\sigma = \text{gain}\sqrt{2/(\text{fan\_in}+\text{fan\_out})}`."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> Optional[float]:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    # BEGIN SOLUTION 4.6
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)
    # END SOLUTION


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Optional[Generator] = None) -> Tensor:
    r"""He uniform: :math:`\mathcal{U}(-\sqrt{3}\,\sigma, \sqrt{3}\,\sigma)`, :math:`\sigma = \text{gain}/\sqrt{\text{fan}}`.

    ``a`` is leaky ReLU's negative slope (used when ``nonlinearity='leaky_relu'``).
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return uniform_(tensor, -UNIFORM_STD_FACTOR * std, UNIFORM_STD_FACTOR * std, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Optional[Generator] = None) -> Tensor:
    r"""He normal: :math:`\mathcal{N}(0, \sigma^2)`, :math:`\sigma = \text{gain}/\sqrt{\text{fan}}`."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Optional[Generator] = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix from the QR decomposition of a Gaussian matrix, times ``gain``.

    A tensor with more than 2 dimensions is treated as ``(shape[0], rest flattened)``. The
    Gaussian matrix is drawn in the tensor's dtype and the signs of ``R``'s diagonal fixed, as
    PyTorch does, so a seed gives its matrix (up to the last bits its LAPACK may differ in).
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        gaussian = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            gaussian = gaussian.t()
        q, r = qr(gaussian)
        q = q * r.diagonal().sign()  # make the decomposition unique: a uniform (Haar) orthogonal matrix
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill a 2-D tensor with :math:`\mathcal{N}(0, \text{std}^2)` values, then zero
    :math:`\lceil \text{sparsity} \cdot \text{rows} \rceil` random rows of each column.

    As in PyTorch, the rows to zero come from the global generator even when ``generator`` is given.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros_per_column = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            tensor[randperm(rows)[:zeros_per_column], column] = 0
    return tensor
