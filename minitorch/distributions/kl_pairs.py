r"""The closed forms of :math:`\mathrm{KL}(p \,\|\, q)`, registered with :func:`.kl.register_kl` on import.

Where ``q`` gives zero mass to a set ``p`` charges the divergence is :math:`+\infty`; where ``p``
gives zero mass a term :math:`0 \log 0` is 0.
"""

from __future__ import annotations

import math

from ..creation import full_like
from ..linalg import solve_triangular
from ..nn.functional import softplus
from ..ops.strided import broadcast_shapes
from ..tensor import Tensor
from .binomial import Binomial
from .categorical import Bernoulli, Categorical
from .continuous import Normal, Uniform
from .discrete import Geometric, OneHotCategorical
from .distribution import sum_rightmost
from .exponential import Exponential
from .gamma_family import Beta, Dirichlet, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .location_scale import Cauchy, Laplace
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    lowrank_log_det,
    lowrank_mahalanobis,
    trace_of_square,
    woodbury_factor,
)
from .multivariate_normal import MultivariateNormal, half_log_det, mahalanobis
from .poisson import Poisson
from .transformed import TransformedDistribution
from .transformed_families import EULER_GAMMA, Gumbel, HalfNormal

INF = float("inf")
#: PyTorch's messages for Gaussians of different sizes (the run of spaces is in PyTorch's text)
LOW_RANK_EVENT_SHAPES = ("KL-divergence between two Low Rank Multivariate Normals with"
                         "                          different event shapes cannot be computed")
MIXED_RANK_EVENT_SHAPES = ("KL-divergence between two (Low Rank) Multivariate Normals with"
                           "                          different event shapes cannot be computed")


@register_kl(Normal, Normal)
def _normal_normal(p: Normal, q: Normal) -> Tensor:
    r""":math:`\tfrac12\left(r + ((\mu_p - \mu_q)/\sigma_q)^2 - 1 - \log r\right)`, :math:`r = \sigma_p^2/\sigma_q^2`."""
    ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (ratio + shift - 1 - ratio.log())


@register_kl(HalfNormal, HalfNormal)
def _halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _normal_normal(p.base_dist, q.base_dist)


@register_kl(Bernoulli, Bernoulli)
def _bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    r""":math:`p \log\frac{p}{q} + (1 - p)\log\frac{1 - p}{1 - q}`, in logits (:math:`-\log q = \mathrm{softplus}(-\ell_q)`)."""
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones = ones.masked_fill(q.probs == 0, INF).masked_fill(p.probs == 0, 0.0)
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros = zeros.masked_fill(q.probs == 1, INF).masked_fill(p.probs == 1, 0.0)
    return ones + zeros


@register_kl(Categorical, Categorical)
def _categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    r""":math:`\sum_k p_k (\log p_k - \log q_k)`."""
    terms = p.probs * (p.logits - q.logits)
    terms = terms.masked_fill((q.probs == 0).expand(*terms.shape), INF)
    terms = terms.masked_fill((p.probs == 0).expand(*terms.shape), 0.0)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    r""":math:`-H(p) - \mathbb{E}_p[k]\log(1 - q) - \log q`, with :math:`\mathbb{E}_p[k] + 1 = 1/p`."""
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Uniform, Uniform)
def _uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    r""":math:`\log\frac{b_q - a_q}{b_p - a_p}` when :math:`[a_p, b_p] \subseteq [a_q, b_q]`, else :math:`\infty`."""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), INF)


@register_kl(Exponential, Exponential)
def _exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    r""":math:`r - 1 - \log r`, :math:`r = \lambda_q / \lambda_p`."""
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Laplace, Laplace)
def _laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    r""":math:`-\log\frac{b_p}{b_q} + \frac{|\Delta|}{b_q} + \frac{b_p}{b_q} e^{-|\Delta|/b_p} - 1`, :math:`\Delta = \mu_p - \mu_q`."""
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * (-gap / p.scale).exp() - 1


@register_kl(Cauchy, Cauchy)
def _cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    r""":math:`\log\frac{(\gamma_p + \gamma_q)^2 + (x_p - x_q)^2}{4\gamma_p\gamma_q}`."""
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(MultivariateNormal, MultivariateNormal)
def _mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    r""":math:`\tfrac12\left(\operatorname{tr}(\Sigma_q^{-1}\Sigma_p) + \lVert L_q^{-1}(\mu_q - \mu_p)\rVert^2 - k
    + \log\frac{\det\Sigma_q}{\det\Sigma_p}\right)`, with :math:`\operatorname{tr}(\Sigma_q^{-1}\Sigma_p) = \lVert L_q^{-1}L_p\rVert_F^2`."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be computed")
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    k = p.event_shape[0]
    batch = tuple(broadcast_shapes(tuple(lq.shape[:-2]), tuple(lp.shape[:-2])))
    trace = solve_triangular(lq.expand(*batch, k, k), lp.expand(*batch, k, k), upper=False).pow(2).sum((-2, -1))
    shift = solve_triangular(lq, (q.loc - p.loc).unsqueeze(-1), upper=False).squeeze(-1).pow(2).sum(-1)
    return half_log_det(lq) - half_log_det(lp) + 0.5 * (trace + shift - k)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    r""":math:`\tfrac12\left(\log\frac{\det\Sigma_q}{\det\Sigma_p} + \operatorname{tr}(\Sigma_q^{-1}\Sigma_p)
    + \Delta^\top\Sigma_q^{-1}\Delta - k\right)`, :math:`\Delta = \mu_q - \mu_p`, with
    :math:`\Sigma_q^{-1} = D_q^{-1} - A^\top A` (Woodbury) and :math:`\Sigma_p = W_p W_p^\top + D_p`, so
    :math:`\operatorname{tr}(\Sigma_q^{-1}\Sigma_p) = \sum_i \frac{D_{p,i}}{D_{q,i}} + \lVert D_q^{-1/2} W_p\rVert_F^2
    - \lVert A D_p^{1/2}\rVert_F^2 - \lVert A W_p\rVert_F^2`."""
    if p.event_shape != q.event_shape:
        raise ValueError(LOW_RANK_EVENT_SHAPES)
    wp, dp = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    wq, dq = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_det = lowrank_log_det(dq, q._capacitance_tril) - lowrank_log_det(dp, p._capacitance_tril)
    shift = lowrank_mahalanobis(wq, dq, q.loc - p.loc, q._capacitance_tril)
    factor = woodbury_factor(wq, dq, q._capacitance_tril)
    trace = ((dp / dq).sum(-1) + trace_of_square(wp * dq.rsqrt().unsqueeze(-1))
             - trace_of_square(factor * dp.sqrt().unsqueeze(-2)) - trace_of_square(factor @ wp))
    return 0.5 * (log_det + trace + shift - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    r"""As for two low-rank ones, with :math:`\Sigma_p = L_p L_p^\top`:
    :math:`\operatorname{tr}(\Sigma_q^{-1}\Sigma_p) = \lVert D_q^{-1/2} L_p\rVert_F^2 - \lVert A L_p\rVert_F^2`."""
    if p.event_shape != q.event_shape:
        raise ValueError(MIXED_RANK_EVENT_SHAPES)
    lp = p._unbroadcasted_scale_tril
    wq, dq = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_det = lowrank_log_det(dq, q._capacitance_tril) - 2 * half_log_det(lp)
    shift = lowrank_mahalanobis(wq, dq, q.loc - p.loc, q._capacitance_tril)
    factor = woodbury_factor(wq, dq, q._capacitance_tril)
    trace = trace_of_square(lp * dq.rsqrt().unsqueeze(-1)) - trace_of_square(factor @ lp)
    return 0.5 * (log_det + trace + shift - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    r"""With :math:`\Sigma_q = L_q L_q^\top`:
    :math:`\operatorname{tr}(\Sigma_q^{-1}\Sigma_p) = \lVert L_q^{-1} W_p\rVert_F^2 + \lVert L_q^{-1} D_p^{1/2}\rVert_F^2`."""
    if p.event_shape != q.event_shape:
        raise ValueError(MIXED_RANK_EVENT_SHAPES)
    lq = q._unbroadcasted_scale_tril
    wp, dp = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    log_det = 2 * half_log_det(lq) - lowrank_log_det(dp, p._capacitance_tril)
    shift = mahalanobis(lq, q.loc - p.loc)
    k, rank = p.event_shape[0], wp.shape[-1]
    batch = tuple(broadcast_shapes(tuple(lq.shape[:-2]), tuple(wp.shape[:-2])))
    lq = lq.expand(*batch, k, k)
    trace = (trace_of_square(solve_triangular(lq, wp.expand(*batch, k, rank), upper=False))
             + trace_of_square(solve_triangular(lq, dp.sqrt().diag_embed().expand(*batch, k, k), upper=False)))
    return 0.5 * (log_det + trace + shift - k)


@register_kl(Gumbel, Gumbel)
def _gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    r""":math:`-\log r - \frac{\mu_q - \mu_p}{\beta_q} + r\gamma + e^{(\mu_q - \mu_p)/\beta_q}\,\Gamma(1 + r) - (1 + \gamma)`,
    :math:`r = \beta_p / \beta_q`."""
    ratio = p.scale / q.scale
    shift = (q.loc - p.loc) / q.scale
    return -ratio.log() - shift + ratio * EULER_GAMMA + (shift + (1 + ratio).lgamma()).exp() - (1 + EULER_GAMMA)


@register_kl(Gamma, Gamma)
def _gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    r""":math:`\alpha_q\log\frac{\beta_p}{\beta_q} + \log\frac{\Gamma(\alpha_q)}{\Gamma(\alpha_p)}
    + (\alpha_p - \alpha_q)\psi(\alpha_p) + (\beta_q - \beta_p)\frac{\alpha_p}{\beta_p}`."""
    return (q.concentration * (p.rate / q.rate).log() + q.concentration.lgamma() - p.concentration.lgamma()
            + (p.concentration - q.concentration) * p.concentration.digamma()
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Beta, Beta)
def _beta_beta(p: Beta, q: Beta) -> Tensor:
    r""":math:`\log\frac{B(a_q, b_q)}{B(a_p, b_p)} + (a_p - a_q)\psi(a_p) + (b_p - b_q)\psi(b_p)
    + (a_q + b_q - a_p - b_p)\psi(a_p + b_p)`."""
    return _dirichlet_dirichlet(p._dirichlet, q._dirichlet)


@register_kl(Dirichlet, Dirichlet)
def _dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    r""":math:`\log\frac{\Gamma(\alpha_0)}{\Gamma(\beta_0)} - \sum_k \log\frac{\Gamma(\alpha_k)}{\Gamma(\beta_k)}
    + \sum_k (\alpha_k - \beta_k)(\psi(\alpha_k) - \psi(\alpha_0))` (:math:`\alpha` of ``p``, :math:`\beta` of ``q``)."""
    a, b = p.concentration, q.concentration
    total_a, total_b = a.sum(-1), b.sum(-1)
    return (total_a.lgamma() - total_b.lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
            + ((a - b) * (a.digamma() - total_a.digamma().unsqueeze(-1))).sum(-1))


@register_kl(Exponential, Gamma)
def _exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    r""":math:`-\alpha\log r + r + \log\Gamma(\alpha) + \alpha\gamma - (1 + \gamma)`, :math:`r = \beta / \lambda`."""
    ratio = q.rate / p.rate
    return -q.concentration * ratio.log() + ratio + q.concentration.lgamma() + q.concentration * EULER_GAMMA - (1 + EULER_GAMMA)


@register_kl(Gamma, Exponential)
def _gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    r""":math:`-H(p) - \log\lambda + \lambda\,\mathbb{E}_p[x]`."""
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration / p.rate)


@register_kl(Poisson, Poisson)
def _poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    r""":math:`\lambda_p(\log\lambda_p - \log\lambda_q) - (\lambda_p - \lambda_q)`."""
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    r""":math:`n\left(p\,(\ell_p - \ell_q) + \log(1 - p) - \log(1 - q)\right)` for equal counts :math:`n`;
    :math:`\infty` where :math:`n_p > n_q` (``q`` has no mass above :math:`n_q`); not implemented where :math:`n_p < n_q`."""
    if bool((p.total_count < q.total_count).any().item()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    result = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return result.masked_fill(p.total_count > q.total_count, INF)


@register_kl(Independent, Independent)
def _independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    """KL is unchanged by one bijection applied to both: the bases' KL when the transforms are equal."""
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


# Pairs of different families


@register_kl(Normal, Laplace)
def _normal_laplace(p: Normal, q: Laplace) -> Tensor:
    r""":math:`-\log\frac{\sigma}{b} + \frac{1}{b}\left(\sigma\sqrt{2/\pi}\,e^{-\Delta^2/2\sigma^2} + \Delta\,\mathrm{erf}(\Delta/\sqrt2\sigma)\right)
    - \tfrac12(1 + \log\tfrac{\pi}{2})`."""
    gap = p.loc - q.loc
    standardized = gap / p.scale
    mean_abs = math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardized.pow(2)).exp() + gap * (math.sqrt(0.5) * standardized).erf()
    return -(p.scale / q.scale).log() + mean_abs / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Laplace, Normal)
def _laplace_normal(p: Laplace, q: Normal) -> Tensor:
    r""":math:`-\tfrac12\log\frac{2 b^2}{\pi\sigma^2} + \frac{b^2}{\sigma^2} + \frac{(\mu_p - \mu_q)^2}{2\sigma^2} - 1`."""
    var = q.scale.pow(2)
    ratio = p.scale.pow(2) / var
    return -0.5 * (2 * ratio / math.pi).log() + ratio + 0.5 * (p.loc - q.loc).pow(2) / var - 1


@register_kl(Exponential, Normal)
def _exponential_normal(p: Exponential, q: Normal) -> Tensor:
    r""":math:`\tfrac12\log(2\pi\lambda^2\sigma^2) - 1 + \left(\lambda^{-2} - \mu/\lambda + \mu^2/2\right)/\sigma^2`."""
    var = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    return 0.5 * (rate_sq * var * 2 * math.pi).log() - 1 + (rate_sq.reciprocal() - q.loc / p.rate + 0.5 * q.loc.pow(2)) / var


@register_kl(Uniform, Normal)
def _uniform_normal(p: Uniform, q: Normal) -> Tensor:
    r""":math:`\log\frac{\sqrt{2\pi}\sigma}{b - a} + \frac{(b - a)^2/12 + ((a + b)/2 - \mu)^2}{2\sigma^2}`."""
    width = p.high - p.low
    centre = (p.high + p.low) / 2 - q.loc
    return (math.sqrt(2 * math.pi) * q.scale / width).log() + 0.5 * (width.pow(2) / 12 + centre.pow(2)) / q.scale.pow(2)


@register_kl(Uniform, Exponential)
def _uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    r""":math:`\lambda(a + b)/2 - \log((b - a)\lambda)`, :math:`\infty` when :math:`a < 0`."""
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return result.masked_fill(p.low < 0, INF)


@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Beta)
@register_kl(Normal, Uniform)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Beta)
@register_kl(Exponential, Beta)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Uniform)
@register_kl(Exponential, Uniform)
def _infinite(p: object, q: object) -> Tensor:
    """:math:`\\infty`: ``q`` is zero on a set where ``p`` has mass."""
    like = p.rate if isinstance(p, Exponential) else p.loc  # type: ignore[attr-defined]
    return full_like(like, INF)


@register_kl(Bernoulli, Poisson)
def _bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    r""":math:`-H(p) - (p\log\lambda - \lambda)`: the Poisson's :math:`\log k!` is 0 at :math:`k \in \{0, 1\}`."""
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _poisson_bounded(p: Poisson, q: object) -> Tensor:
    r""":math:`\infty`: a Poisson has mass on every count, the other only up to a bound."""
    return full_like(p.rate, INF)
