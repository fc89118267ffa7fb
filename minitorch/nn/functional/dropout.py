r"""Dropout: during training, zero each element with probability :math:`p` and scale the
survivors by :math:`1/(1-p)`, so the expected value of every element is unchanged."""

from __future__ import annotations

import warnings
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
    _check_range(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    return _feature_dropout(input, p, training, inplace, batched=input.dim() == 3)


#: what PyTorch says of an input of another rank than a channel dropout's own (its text, {0} the
#: function, {1} the rank, {2} the spatial dims, {3} the ranks it takes)
RANK_WARNING = (
    "{0}: Received a {1}-D input to {0}, which is deprecated and will result in an error in a future release. "
    "To retain the behavior and silence this warning, please use dropout instead. Note that {0} exists to "
    "provide channel-wise dropout on inputs with {2} spatial dimensions, a channel dimension, and an optional "
    "batch dimension (i.e. {3} inputs)."
)
#: PyTorch's warning for a 3-D input to ``dropout2d``, which it reads as ``(N, C, L)``
DROPOUT2D_3D_WARNING = (
    "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
    "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
    "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
    "channel-wise dropout behavior, please switch to using dropout1d instead."
)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Dropout of whole channels (feature maps) of ``(N, C, H, W)`` input. As in PyTorch, every other
    rank is read as ``(N, C, ...)`` with a warning: a 3-D input is ``(N, C, L)``, not ``(C, H, W)``."""
    _check_range(p)
    if input.dim() not in (3, 4):
        warnings.warn(RANK_WARNING.format("dropout2d", input.dim(), 2, "3D or 4D"), stacklevel=2)
    if input.dim() == 3:
        warnings.warn(DROPOUT2D_3D_WARNING, stacklevel=2)
    return _feature_dropout(input, p, training, inplace, batched=True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Dropout of whole channels (volumes) of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input. As in
    PyTorch, another rank than 5 is read as unbatched, ``(C, ...)``, with a warning unless it is 4."""
    _check_range(p)
    if input.dim() not in (4, 5):
        warnings.warn(RANK_WARNING.format("dropout3d", input.dim(), 3, "4D or 5D"), stacklevel=2)
    return _feature_dropout(input, p, training, inplace, batched=input.dim() == 5)


def _check_range(p: float) -> None:
    """PyTorch's Python check of ``p``, made before its warnings (NaN passes it)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched: bool) -> Tensor:  # noqa: A002
    """PyTorch's ``feature_dropout``: one draw per ``(N, C)`` channel of ``input`` read as ``(N, C, ...)``
    (an unbatched ``(C, ...)`` input as ``(1, C, ...)``)."""
    _check_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.copy_(input * 0.0) if inplace else input * 0.0
    if input.dim() + (0 if batched else 1) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    channels = 2 if batched else 1
    mask_shape = tuple(input.shape[:channels]) + (1,) * (input.dim() - channels)
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
