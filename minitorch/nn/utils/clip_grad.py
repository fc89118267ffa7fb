"""Gradient clipping: rescale all gradients together (by norm) or clamp each value."""

from __future__ import annotations

import math
import warnings
from typing import Iterable, Optional, Union

from ...autograd import no_grad
from ...creation import stack, tensor
from ...tensor import Tensor

Parameters = Union[Tensor, Iterable[Tensor]]
#: added to the total norm before dividing, so an all-zero gradient does not divide by zero
CLIP_EPS = 1e-6


def _as_list(tensors: Parameters) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def vector_norm(x: Tensor, norm_type: float) -> Tensor:
    r"""The :math:`p`-norm of all of ``x``'s entries: :math:`(\sum |x_i|^p)^{1/p}`.

    ``inf`` gives :math:`\max |x_i|`, ``-inf`` :math:`\min |x_i|` and 0 the number of
    non-zero entries. An empty tensor has norm 0.
    """
    # BEGIN SOLUTION 6.8
    if x.numel() == 0:
        return x.new_zeros(())
    magnitude = x.detach().abs().reshape(-1)
    if norm_type == math.inf:
        return magnitude.max()
    if norm_type == -math.inf:
        return magnitude.min()
    if norm_type == 0:
        return (magnitude != 0).sum().to(x.dtype)
    if norm_type == 1:
        return magnitude.sum()
    if norm_type == 2:
        return (magnitude * magnitude).sum().sqrt()
    return (magnitude**norm_type).sum() ** (1.0 / norm_type)
    # END SOLUTION


def get_total_norm(tensors: Parameters, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """The norm of the norms of ``tensors``: the norm of all their entries as one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    # BEGIN SOLUTION 6.8
    norms = [vector_norm(t, norm_type) for t in tensors]
    device = tensors[0].device
    total = vector_norm(stack([norm.to(device) for norm in norms]), norm_type)
    # END SOLUTION
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters: Parameters, max_norm: float, total_norm: Tensor) -> None:
    r"""Scale every gradient by :math:`\min(1, \text{max\_norm} / (\text{total\_norm} + 10^{-6}))`."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    # BEGIN SOLUTION 6.8
    coefficient = (max_norm / (total_norm.detach() + CLIP_EPS)).clamp(max=1.0)
    with no_grad():
        for grad in grads:
            grad.mul_(coefficient.to(device=grad.device, dtype=grad.dtype))
    # END SOLUTION


def clip_grad_norm_(parameters: Parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: Optional[bool] = None) -> Tensor:
    """Rescale the gradients in place so that their total norm is at most ``max_norm``.

    The norm is taken over all gradients together, as if they were one vector; the
    gradients keep their directions. Returns the total norm *before* clipping (useful to
    log). With ``error_if_nonfinite`` a nan or infinite norm raises instead of spreading
    nan through every gradient. ``foreach`` is accepted for PyTorch compatibility.
    """
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total_norm)
    return total_norm


def clip_grad_norm(parameters: Parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: Optional[bool] = None) -> Tensor:
    """The deprecated name of :func:`clip_grad_norm_` (same result, with PyTorch's ``FutureWarning``)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Parameters, clip_value: float, foreach: Optional[bool] = None) -> None:
    """Clamp every gradient entry into ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                # BEGIN SOLUTION 6.8
                p.grad.copy_(p.grad.clamp(min=-clip_value, max=clip_value))
                # END SOLUTION


__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm", "vector_norm"]
