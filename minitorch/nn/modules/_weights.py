"""Registering a layer's optional ``weight`` and ``bias``, the one way every layer does it."""

from __future__ import annotations

from typing import Optional

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module


def register_weight_and_bias(module: Module, weight: Optional[Tensor], bias: Optional[Tensor]) -> None:
    """Register ``weight`` then ``bias`` as parameters of ``module``; one that is ``None``
    (``bias=False``, ``affine=False``) is registered as ``None``, so the attribute exists,
    as in PyTorch."""
    for name, value in (("weight", weight), ("bias", bias)):
        module.register_parameter(name, None if value is None else Parameter(value))
