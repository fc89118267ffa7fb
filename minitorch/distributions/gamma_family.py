r"""The Gamma family: ``Gamma`` on :math:`x \ge 0`, ``Beta`` on :math:`[0, 1]` and ``Dirichlet`` on the
simplex, with :math:`\log\Gamma` (``lgamma``) in the normalizers and :math:`\psi` (``digamma``) in
the entropies.

Draws come from NumPy's gamma sampler on the stream of minitorch's generator of the parameters'
device, and every draw is reparameterized (``rsample``), as in PyTorch; ``sample`` is ``rsample``
outside the graph, so after the same seed the two give the same numbers. A standard gamma draw
:math:`G \sim \mathrm{Gamma}(\alpha, 1)` carries the implicit gradient :math:`dG/d\alpha` of
:mod:`.gamma_reparam` (its quantile held fixed).

- ``Gamma``: :math:`x = G/\beta`, at least the smallest normal number.
- ``Dirichlet``: :math:`x_k = G_k/S`, :math:`S = \sum_j G_j`, drawn and normalized in float64, then
  rounded and kept inside :math:`[\mathrm{tiny}, 1)` (as PyTorch). Its Jacobian is

  .. math:: \frac{\partial x_j}{\partial\alpha_k} = (\delta_{jk} - x_j)\, c_k, \qquad
            c_k = \frac{1}{S}\frac{dG_k}{d\alpha_k}.

  PyTorch's has the same form with :math:`c_k` replaced by its conditional expectation given
  :math:`x`: the implicit gradient of the marginal :math:`x_k \sim \mathrm{Beta}(\alpha_k, \alpha_0 - \alpha_k)`
  divided by :math:`1 - x_k` (``torch._dirichlet_grad``). Both are unbiased and give the same
  expected gradient of any :math:`\mathbb{E}[f(x)]`; draw by draw they differ, and this one (which
  still depends on :math:`S`) has the larger variance.
- ``Beta``: the first coordinate of the two-category ``Dirichlet`` of :math:`(a, b)`, as PyTorch:
  :math:`x = G_1/(G_1 + G_0)`.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..autograd.function import Context, Function
from ..creation import eye, stack
from ..creation import tensor as make_tensor
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .distribution import Distribution, broadcast_all
from .gamma_reparam import gamma_draw_slope, standard_gamma_rsample
from .numpy_draws import host_array, standard_gamma_host

#: the smallest normal float64: a float64 gamma draw is at least this (PyTorch's ``_sample_dirichlet``)
FLOAT64_TINY = float(np.finfo(np.float64).tiny)


def _inside_unit_interval(dtype: dtypes.dtype) -> tuple[float, float]:
    """The smallest normal number and the largest number below 1 of ``dtype`` (1 less half an epsilon)."""
    info = finfo(dtype)
    return info.tiny, 1.0 - info.eps / 2


class _Dirichlet(Function):
    r"""Draws :math:`x \sim \mathrm{Dir}(\alpha)`, one per row of ``concentration`` (the categories last);
    backward gives :math:`\bar\alpha_k = c_k(\bar x_k - \sum_j x_j \bar x_j)`,
    :math:`c_k = \frac{1}{S}\frac{dG_k}{d\alpha_k}`."""

    #: PyTorch's, the node of its own (Python) Function ``_Dirichlet``
    grad_fn_name = "_DirichletBackward"

    @staticmethod
    def forward(ctx: Context, concentration: Tensor) -> Tensor:
        gammas = np.maximum(standard_gamma_host(concentration, tuple(concentration.shape)), FLOAT64_TINY)
        total = gammas.sum(-1, keepdims=True)
        ctx.gammas, ctx.total = gammas, total
        ctx.save_for_backward(concentration)
        low, high = _inside_unit_interval(concentration.dtype)
        draws = make_tensor(gammas / total, dtype=concentration.dtype, device=concentration.device)
        return draws.clamp(low, high)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (concentration,) = ctx.saved_tensors
        alpha = host_array(concentration, tuple(concentration.shape)).astype(np.float64)
        scaled_slope = gamma_draw_slope(alpha, ctx.gammas) / ctx.total  # c_k
        draws = ctx.gammas / ctx.total
        upstream = grad.detach().to("cpu").numpy().astype(np.float64)
        result = scaled_slope * (upstream - (draws * upstream).sum(-1, keepdims=True))
        return make_tensor(result, dtype=grad.dtype, device=grad.device)


class Gamma(Distribution):
    r"""Gamma with ``concentration`` :math:`\alpha` and ``rate`` :math:`\beta`:
    :math:`\log p(x) = \alpha\log\beta + (\alpha - 1)\log x - \beta x - \log\Gamma(\alpha)`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Optional[bool] = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(tuple(self.concentration.shape), (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`G/\beta`, :math:`G \sim \mathrm{Gamma}(\alpha, 1)` differentiable in :math:`\alpha` (implicitly)
        and in :math:`\beta`; raised to the smallest normal number outside the graph, as PyTorch."""
        shape = self._extended_shape(sample_shape)
        value = standard_gamma_rsample(self.concentration, shape) / self.rate.expand(*shape)
        value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        return (self.concentration.xlogy(self.rate) + (self.concentration - 1).xlogy(value) - self.rate * value
                - self.concentration.lgamma())

    def entropy(self) -> Tensor:
        r""":math:`\alpha - \log\beta + \log\Gamma(\alpha) + (1 - \alpha)\psi(\alpha)`."""
        alpha = self.concentration
        return alpha - self.rate.log() + alpha.lgamma() + (1.0 - alpha) * alpha.digamma()


class Dirichlet(Distribution):
    r"""Dirichlet with ``concentration`` :math:`\alpha \in \mathbb{R}_{>0}^K` (the last dimension):
    :math:`\log p(x) = \sum_k (\alpha_k - 1)\log x_k + \log\Gamma(\alpha_0) - \sum_k \log\Gamma(\alpha_k)`,
    :math:`\alpha_0 = \sum_k \alpha_k`."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: Optional[bool] = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """The normalized :math:`(\\alpha_k - 1)^+`; where every :math:`\\alpha_k < 1`, the first vertex (as PyTorch)."""
        excess = (self.concentration - 1).clamp(min=0)
        mode = excess / excess.sum(-1, keepdim=True)
        vertex = eye(mode.shape[-1], dtype=mode.dtype, device=mode.device)[0]
        below = (self.concentration < 1).all(-1, keepdim=True)
        return vertex.where(below, mode)

    @property
    def variance(self) -> Tensor:
        r""":math:`\alpha_k(\alpha_0 - \alpha_k) / (\alpha_0^2(\alpha_0 + 1))`."""
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`G_k/\sum_j G_j`, differentiable in :math:`\alpha` through the implicit gradients of the
        :math:`G_k`."""
        return _Dirichlet.apply(self.concentration.expand(*self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        alpha = self.concentration
        return (alpha - 1).xlogy(value).sum(-1) + alpha.sum(-1).lgamma() - alpha.lgamma().sum(-1)

    def entropy(self) -> Tensor:
        r""":math:`\sum_k \log\Gamma(\alpha_k) - \log\Gamma(\alpha_0) + (\alpha_0 - K)\psi(\alpha_0) - \sum_k (\alpha_k - 1)\psi(\alpha_k)`."""
        alpha = self.concentration
        k = alpha.shape[-1]
        total = alpha.sum(-1)
        return (alpha.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma()
                - ((alpha - 1.0) * alpha.digamma()).sum(-1))


class Beta(Distribution):
    r"""Beta with ``concentration1`` :math:`a` and ``concentration0`` :math:`b`:
    :math:`\log p(x) = (a - 1)\log x + (b - 1)\log(1 - x) - \log B(a, b)`. As in PyTorch it is the
    two-category ``Dirichlet`` of :math:`(a, b)` at :math:`(x, 1 - x)` (its parameter errors name that one)."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Optional[bool] = None) -> None:
        ones, zeros = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(stack([ones, zeros], -1), validate_args=validate_args)
        super().__init__(tuple(self._dirichlet.batch_shape), (), validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, (), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        r""":math:`ab / ((a + b)^2 (a + b + 1))`."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        r""":math:`G_1/(G_1 + G_0)`: the first coordinate of the ``Dirichlet`` draw of :math:`(a, b)`."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        r""":math:`\log B(a, b) - (a - 1)\psi(a) - (b - 1)\psi(b) + (a + b - 2)\psi(a + b)`."""
        return self._dirichlet.entropy()


__all__ = ["Beta", "Dirichlet", "Gamma"]
