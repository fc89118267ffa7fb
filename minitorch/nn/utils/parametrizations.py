r"""Ready-made parametrizations (``nn.utils.parametrizations``), built on :mod:`.parametrize`.

``weight_norm(module, "weight", dim=0)`` writes the weight as a direction and a length,
:math:`w = g\,\frac{v}{\lVert v \rVert}` with the norm taken over every dimension but ``dim``
(over all of them when ``dim`` is None), as PyTorch's: ``g`` is
``parametrizations.weight.original0`` and ``v`` is ``original1``.
"""

from __future__ import annotations

from typing import Optional

from ...tensor import Tensor
from ..modules.module import Module
from .parametrize import register_parametrization


def norm_except_dim(v: Tensor, power: float, dim: int) -> Tensor:
    r""":math:`\lVert v \rVert_p` over every dimension but ``dim`` (shape 1 there), or over all when ``dim`` is -1."""
    if dim == -1:
        return v.norm(power)
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return (v.abs() ** power).sum(others, keepdim=True) ** (1.0 / power)


class _WeightNorm(Module):
    """:math:`g \\cdot v / \\lVert v \\rVert`, from ``(g, v)``; its right inverse splits a weight into them."""

    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Reparametrize ``module.<name>`` as a length ``original0`` times a direction ``original1``."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


__all__ = ["weight_norm"]
