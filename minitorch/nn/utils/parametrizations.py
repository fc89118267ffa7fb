r"""Ready-made parametrizations (``nn.utils.parametrizations``), built on :mod:`.parametrize`.

``weight_norm(module, "weight", dim=0)`` writes the weight as a direction and a length,
:math:`w = g\,\frac{v}{\lVert v \rVert}` with the norm taken over every dimension but ``dim``
(over all of them when ``dim`` is None), as PyTorch's: ``g`` is
``parametrizations.weight.original0`` and ``v`` is ``original1``.

``spectral_norm(module)`` divides the weight by its largest singular value :math:`\sigma`,
estimated as PyTorch does by power iteration on the weight as a matrix (``dim`` first): the
vectors ``_u`` and ``_v`` are buffers, refined by ``n_power_iterations`` steps at every forward
in training (15 at registration), and :math:`\sigma = u^\top W v`.
"""

from __future__ import annotations

from typing import Optional

from ...autograd.grad_mode import no_grad
from ...creation import randn
from ...tensor import Tensor
from ..functional.distance import normalize
from ..modules.conv import ConvTranspose1d, ConvTranspose2d
from ..modules.module import Module
from .parametrize import register_parametrization

#: the power-iteration steps taken when the parametrization is registered
SPECTRAL_NORM_WARMUP = 15


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


class _SpectralNorm(Module):
    r"""``weight / sigma``, :math:`\sigma` the largest singular value by power iteration (see the module docstring)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._as_matrix(weight)
            rows, columns = matrix.shape
            self.register_buffer("_u", normalize(randn(rows, dtype=weight.dtype), dim=0, eps=eps))
            self.register_buffer("_v", normalize(randn(columns, dtype=weight.dtype), dim=0, eps=eps))
            self._power_method(matrix, SPECTRAL_NORM_WARMUP)

    def _as_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix: Tensor, steps: int) -> None:
        with no_grad():
            for _ in range(steps):
                self._u.copy_(normalize(matrix.detach() @ self._v, dim=0, eps=self.eps))
                self._v.copy_(normalize(matrix.detach().t() @ self._u, dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = self._as_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.dot(matrix @ v)
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm at every use (a Lipschitz constraint, as in GANs)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    return register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))


__all__ = ["spectral_norm", "weight_norm"]
