r"""Normalisation layers: subtract a mean, divide by a standard deviation, then scale and shift.

.. math:: y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} \cdot \gamma + \beta

The variance is the biased one (divide by :math:`n`). The layers differ in which elements
share one mean: layer norm over the trailing ``normalized_shape`` of each sample, batch
norm per channel over the batch and spatial positions, group norm per group of channels.
All are compositions of differentiable tensor ops, so autograd supplies the backward.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

from ...autograd import no_grad
from ...ops.opmath import in_float32
from ...tensor import Tensor
from ...type_info import finfo
from ._utils import shape_list
from .padding import pad
from .pooling import avg_pool2d, avg_pool3d


def _normalize(x: Tensor, dims: tuple[int, ...], eps: float) -> Tensor:
    r""":math:`(x - \bar x) / \sqrt{\sigma^2 + \epsilon}` with mean and biased variance over ``dims``."""
    # BEGIN SOLUTION 5.6
    centered = x - x.mean(dims, keepdim=True)
    variance = (centered * centered).mean(dims, keepdim=True)
    return centered / (variance + eps).sqrt()
    # END SOLUTION


def _trailing_dims(input: Tensor, normalized_shape: Union[int, Sequence[int]]) -> tuple[int, ...]:  # noqa: A002
    """The dimensions ``normalized_shape`` names at the end of ``input``; PyTorch's error if it does not fit."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={shape_list(shape)}, expected input with shape [*, {', '.join(map(str, shape))}], "
            f"but got input of size{shape_list(input.shape)}"
        )
    return tuple(range(input.dim() - k, input.dim()))


def layer_norm(input: Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[Tensor] = None,  # noqa: A002
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over its trailing ``normalized_shape`` dimensions (float16 and bfloat16
    in float32, rounded once, as PyTorch computes them)."""
    return _layer_norm(input, normalized_shape, weight, bias, eps)


def _layer_norm_any(input: Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[Tensor],  # noqa: A002
                    bias: Optional[Tensor], eps: float) -> Tensor:
    out = _normalize(input, _trailing_dims(input, normalized_shape), eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


_layer_norm = in_float32(_layer_norm_any, "NativeLayerNormBackward0")


def rms_norm(input: Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[Tensor] = None,  # noqa: A002
             eps: Optional[float] = None) -> Tensor:
    r""":math:`x / \sqrt{\mathrm{E}[x^2] + \epsilon} \cdot \gamma` over the trailing ``normalized_shape``
    (no mean subtracted); ``eps`` defaults to the machine epsilon of ``input``'s dtype."""
    dims = _trailing_dims(input, normalized_shape)
    if eps is None:
        eps = finfo(input.dtype).eps
    out = input * (input * input).mean(dims, keepdim=True).add(eps).rsqrt()
    return out if weight is None else out * weight


def _per_channel(t: Tensor, ndim: int) -> Tensor:
    """A ``(C,)`` tensor shaped to broadcast along dimension 1 of an ``ndim``-dimensional input."""
    return t.view(-1, *(1,) * (ndim - 2))


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],  # noqa: A002
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    r"""Normalise each channel (dimension 1) over the batch and every spatial position.

    Training uses the batch's statistics and, when running buffers are given, updates them in
    place: :math:`r \leftarrow (1 - m)\,r + m\,s`, with the *unbiased* variance of the batch
    for ``running_var``. Evaluation uses the running statistics.
    """
    if input.dim() < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat.requires_grad:  # updated in place and read as constants: no gradient
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with respect to argument '{name}'. "
                               f"This input cannot have requires_grad True.")
    dims = (0,) + tuple(range(2, input.dim()))
    count = input.numel() // channels if channels else 0
    # BEGIN SOLUTION 5.6
    if training:
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {input.shape}"
            )
        out = _normalize(input, dims, eps)
        if running_mean is not None or running_var is not None:
            with no_grad():
                batch_mean = input.detach().mean(dims)
                if running_mean is not None:
                    running_mean.mul_(1.0 - momentum).add_(batch_mean * momentum)
                if running_var is not None:
                    centered = input.detach() - _per_channel(batch_mean, input.dim())
                    unbiased = (centered * centered).sum(dims) / (count - 1)
                    running_var.mul_(1.0 - momentum).add_(unbiased * momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean = _per_channel(running_mean, input.dim())
        std = (_per_channel(running_var, input.dim()) + eps).sqrt()
        out = (input - mean) / std
    if weight is not None:
        out = out * _per_channel(weight, input.dim())
    if bias is not None:
        out = out + _per_channel(bias, input.dim())
    return out
    # END SOLUTION


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,  # noqa: A002
               eps: float = 1e-5) -> Tensor:
    """Normalise each sample's channels in ``num_groups`` groups, over the group's channels and positions."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    batch, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of shape {shape_list(input.shape)} and num_groups={num_groups}")
    for name, given in (("weight", weight), ("bias", bias)):
        if given is not None and (given.dim() != 1 or given.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                               f"{name} of shape {shape_list(given.shape)} and input of shape {shape_list(input.shape)}")
    grouped = input.reshape(batch, num_groups, -1)
    out = _normalize(grouped, (2,), eps).view(input.shape)
    if weight is not None:
        out = out * _per_channel(weight, input.dim())
    if bias is not None:
        out = out + _per_channel(bias, input.dim())
    return out


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,  # noqa: A002 - PyTorch's name
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    r"""Normalise each channel of each sample over its own spatial positions (dimensions 2 on).

    With ``use_input_stats`` the sample's own statistics normalise, and running buffers, when
    given, move towards the batch average of the per-sample statistics (unbiased variance), as
    in :func:`batch_norm`; without it the running statistics normalise.
    """
    if input.dim() < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
    batch, channels = input.shape[0], input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    dims = tuple(range(2, input.dim()))
    count = input.numel() // (batch * channels) if batch * channels else 0
    if use_input_stats:
        if count <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
        out = _normalize(input, dims, eps)
        if running_mean is not None or running_var is not None:
            with no_grad():
                sample_mean = input.detach().mean(dims)  # (N, C)
                if running_mean is not None:
                    running_mean.mul_(1.0 - momentum).add_(sample_mean.mean(0) * momentum)
                if running_var is not None:
                    centered = input.detach() - sample_mean.view(batch, channels, *(1,) * len(dims))
                    unbiased = (centered * centered).sum(dims) / (count - 1)
                    running_var.mul_(1.0 - momentum).add_(unbiased.mean(0) * momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        mean = _per_channel(running_mean, input.dim())
        out = (input - mean) / (_per_channel(running_var, input.dim()) + eps).sqrt()
    if weight is not None:
        out = out * _per_channel(weight, input.dim())
    if bias is not None:
        out = out + _per_channel(bias, input.dim())
    return out


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,  # noqa: A002
                        k: float = 1.0) -> Tensor:
    r"""AlexNet's normalisation across channels: each value over its neighbours' mean square,

    .. math:: b_c = a_c \Big/ \Big(k + \frac{\alpha}{n} \sum_{c'=c-\lfloor n/2 \rfloor}^{c+\lfloor (n-1)/2 \rfloor} a_{c'}^2\Big)^{\beta},

    ``n = size``, channels beyond the edges counting as zeros (so the mean always divides by ``n``),
    for input ``(N, C, *)``."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    # the window mean of the squares: an average pool of size x 1 over the channels, zero-padded
    squares = input * input
    before, after = size // 2, (size - 1) // 2
    if input.dim() == 3:
        mean = avg_pool2d(pad(squares.unsqueeze(1), (0, 0, before, after)), (size, 1), stride=1).squeeze(1)
    else:
        batch, channels = input.shape[:2]
        planes = pad(squares.reshape(batch, 1, channels, input.shape[2], -1), (0, 0, 0, 0, before, after))
        mean = avg_pool3d(planes, (size, 1, 1), stride=1).squeeze(1).reshape(input.shape)
    return input / (mean * alpha + k) ** beta
