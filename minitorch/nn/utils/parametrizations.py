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
from ...creation import eye, randn
from ...ops.decompositions import geqrf, householder_product, matrix_exp, solve
from ...ops.shape_ops import cat
from ...tensor import Tensor
from ...type_info import finfo
from ..functional.distance import normalize
from ..modules.module import Module
from .parametrize import register_parametrization
from .spectral_norm import output_dim, weight_as_matrix

#: the power-iteration steps taken when the parametrization is registered
SPECTRAL_NORM_WARMUP = 15


def norm_except_dim(v: Tensor, power: float, dim: int) -> Tensor:
    r""":math:`\lVert v \rVert_p` over every dimension but ``dim`` (shape 1 there), or over all when ``dim`` is -1."""
    if dim == -1:
        return v.norm(power)
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return (v.abs() ** power).sum(others, keepdim=True) ** (1.0 / power)


def weight_from_parts(length: Tensor, direction: Tensor, dim: int) -> Tensor:
    r""":math:`g\,v / \lVert v \rVert`, the norm over every dimension but ``dim`` (all when -1): the weight
    both weight-norm APIs compute (PyTorch's ``torch._weight_norm``)."""
    return direction * (length / norm_except_dim(direction, 2, dim))


class _WeightNorm(Module):
    """:math:`g \\cdot v / \\lVert v \\rVert`, from ``(g, v)``; its right inverse splits a weight into them."""

    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_from_parts(weight_g, weight_v, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Reparametrize ``module.<name>`` as a length ``original0`` times a direction ``original1``.

    A state dict written under the older hook API (``<name>_g`` and ``<name>_v``) loads into it."""
    register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_hook_api_keys(state_dict: dict, prefix: str, *_: object) -> None:
        length, direction = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if length in state_dict and direction in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(length)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(direction)

    module._register_load_state_dict_pre_hook(load_hook_api_keys)
    return module


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
            self.register_buffer("_u", normalize(matrix.new_empty(rows).normal_(0, 1), dim=0, eps=eps))
            self.register_buffer("_v", normalize(matrix.new_empty(columns).normal_(0, 1), dim=0, eps=eps))
            self._power_method(matrix, SPECTRAL_NORM_WARMUP)

    def _as_matrix(self, weight: Tensor) -> Tensor:
        return weight_as_matrix(weight, self.dim)

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
        dim = output_dim(module)
    return register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))


class _Orthogonal(Module):
    r"""A square or tall matrix (or a batch) kept orthogonal: :math:`Q^\top Q = I`.

    The unconstrained ``original`` is mapped onto the orthogonal matrices: by the exponential
    of the skew-symmetric :math:`A = X - X^\top` built from its lower triangle (``matrix_exp``),
    by the Cayley map :math:`(I - A/2)^{-1}(I + A/2)` (``cayley``), or as a product of
    Householder reflections stored below its diagonal (``householder``). A wide matrix is
    handled as its transpose. With ``use_trivialization`` the map starts from a ``base``
    buffer, the orthogonal matrix last assigned, so that ``original`` starts at (and stays
    near) the map's simplest point and assigning any orthogonal matrix is possible.
    """

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:  # noqa: N803 - the math's name
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            # BEGIN SOLUTION 11.2
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = matrix_exp(A)
            else:
                identity = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(identity - 0.5 * A, identity + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
            # END SOLUTION
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            Q = Q * X.diagonal(0, -2, -1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q  # noqa: N806
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n  # noqa: N806
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("cayley", "matrix_exp"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A, tau = geqrf(Q)  # noqa: N806
            signs = A.diagonal(0, -2, -1).sign()
            signs = signs.where(tau != 0.0, -signs)
            A = _with_diagonal(A, signs)  # noqa: N806
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)  # noqa: N806
        else:
            padding = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, padding], dim=-1))  # noqa: N806
        self.base = Q
        negative_identity = Q_init.new_zeros(Q_init.shape)
        rows, columns = Q_init.shape[-2], Q_init.shape[-1]
        return negative_identity - eye(rows, columns, dtype=Q_init.dtype, device=Q_init.device)


def _with_diagonal(A: Tensor, diagonal: Tensor) -> Tensor:  # noqa: N803
    """``A`` (n x k, n >= k) with its main diagonal replaced by ``diagonal``."""
    n, k = A.shape[-2], A.shape[-1]
    mask = eye(n, k, dtype=A.dtype, device=A.device)
    placed = cat([diagonal.diag_embed(0, -2, -1), A.new_zeros(*A.shape[:-2], n - k, k)], dim=-2)
    return A * (1 - mask) + placed


def _is_orthogonal(Q: Tensor) -> bool:  # noqa: N803
    n, k = Q.shape[-2], Q.shape[-1]
    identity = eye(k, dtype=Q.dtype, device=Q.device)
    return (Q.mT @ Q).allclose(identity, atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A: Tensor) -> Tensor:  # noqa: N803
    """The ``Q`` of ``A = QR`` (``A`` tall) whose ``R`` has a non-negative diagonal."""
    X, tau = geqrf(A)  # noqa: N806
    Q = householder_product(X, tau)  # noqa: N806
    return Q * X.diagonal(0, -2, -1).sgn().unsqueeze(-2)


#: the maps ``orthogonal`` accepts
ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def orthogonal(module: Module, name: str = "weight", orthogonal_map: Optional[str] = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep ``module.<name>`` (a matrix or a batch of them) orthogonal while it trains.

    ``orthogonal_map``: ``"matrix_exp"`` (the default for square matrices), ``"cayley"``, or
    ``"householder"`` (the default otherwise).
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in ORTHOGONAL_MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}')
    register_parametrization(module, name, _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization),
                             unsafe=True)
    return module


__all__ = ["orthogonal", "spectral_norm", "weight_norm"]
