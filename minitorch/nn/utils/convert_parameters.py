"""Flatten a model's parameters into one vector and write such a vector back."""

from __future__ import annotations

from typing import Iterable

from ...creation import cat
from ...tensor import Tensor


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters, each flattened, joined end to end (differentiable; on one device)."""
    flat = []
    device = None
    for param in parameters:
        if device is None:
            device = param.device
        elif param.device != device:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
        flat.append(param.reshape(-1))
    return cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Give each parameter the next ``numel()`` entries of ``vec`` as its data (the inverse of the above)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected minitorch.Tensor, but got: {type(vec).__name__}")
    start = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[start : start + count].view_as(param).data
        start += count


__all__ = ["parameters_to_vector", "vector_to_parameters"]
