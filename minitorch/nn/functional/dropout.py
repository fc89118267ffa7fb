r"""Dropout: during training, zero each element with probability :math:`p` and scale the
survivors by :math:`1/(1-p)`, so the expected value of every element is unchanged."""

from __future__ import annotations

from typing import Sequence

from ...creation import empty
from ...tensor import Tensor


def _check_probability(p: float) -> None:
    """PyTorch's errors for a bad ``p``: out of range (its Python check), nan (its kernel's check)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Tensor, shape: Sequence[int], p: float) -> Tensor:  # noqa: A002
    r"""1 where an element (or channel) is kept, :math:`m_i \sim \mathrm{Bernoulli}(1 - p)`, in ``input``'s dtype."""
    return empty(tuple(shape), dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x \cdot m / (1 - p)` with :math:`m_i \sim \mathrm{Bernoulli}(1 - p)`; the identity when not training."""
    _check_probability(p)
    if not training or p == 0.0:
        return input
    # BEGIN SOLUTION 5.6
    if p == 1.0:
        result = input * 0.0
    else:
        result = input * _keep_mask(input, input.shape, p).div_(1.0 - p)
    # END SOLUTION
    return input.copy_(result) if inplace else result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Dropout of whole channels of ``(N, C, L)`` or ``(C, L)`` input."""
    return _channel_dropout(input, p, training, inplace, spatial_dims=1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Dropout of whole channels (feature maps) of ``(N, C, H, W)`` or ``(C, H, W)`` input."""
    return _channel_dropout(input, p, training, inplace, spatial_dims=2)


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, spatial_dims: int) -> Tensor:  # noqa: A002
    _check_probability(p)
    if spatial_dims == 1 and input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    mask_shape = tuple(input.shape[: input.dim() - spatial_dims]) + (1,) * spatial_dims
    if p == 1.0:
        result = input * 0.0
    else:
        result = input * _keep_mask(input, mask_shape, p).div_(1.0 - p)
    return input.copy_(result) if inplace else result


#: :math:`\lambda\alpha` of SELU: alpha dropout sets a dropped element to :math:`-\lambda\alpha`, SELU's lower limit
SELU_NEGATIVE_LIMIT = 1.7580993408473766


def _alpha_dropped(input: Tensor, keep: Tensor, p: float) -> Tensor:  # noqa: A002
    """:math:`a x + b` for kept elements, :math:`a \\alpha' + b` for dropped ones (``keep`` 1 or 0)."""
    scale = 1.0 / ((SELU_NEGATIVE_LIMIT ** 2 * p + 1.0) * (1.0 - p)) ** 0.5
    # kept: a x + a|alpha'| p; dropped: a alpha' + a|alpha'| p
    shift = (keep - 1.0) * (SELU_NEGATIVE_LIMIT * scale) + SELU_NEGATIVE_LIMIT * scale * p
    return input * (keep * scale) + shift


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:  # noqa: A002
    r"""Dropout for self-normalising (SELU) networks: a dropped element becomes :math:`\alpha' = -\lambda\alpha`,
    then :math:`a x + b` restores zero mean and unit variance,

    .. math:: a = \big((1 - p)(1 + p\,\alpha'^2)\big)^{-1/2}, \qquad b = -a\,\alpha' p .

    The identity when not training (the default, as in PyTorch).
    """
    _check_probability(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        result = input * 0.0
    else:
        result = _alpha_dropped(input, _keep_mask(input, input.shape, p), p)
    return input.copy_(result) if inplace else result


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:
    r""":func:`alpha_dropout` of whole channels: one draw per ``(N, C)`` feature map, the dropped maps set
    to :math:`\alpha' = -\lambda\alpha`, then :math:`a x + b` as there. The identity when not training."""
    _check_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1.0:
        result = input * 0.0
    else:
        noise_shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
        result = _alpha_dropped(input, _keep_mask(input, noise_shape, p), p)
    return input.copy_(result) if inplace else result
