"""Second derivatives of 86 ops against PyTorch: ``minitorch.func.hessian`` (reverse mode twice,
through each op's ``backward`` recorded under ``create_graph``) against
``torch.autograd.functional.hessian`` on the same float64 input.

A ``backward`` computed outside the graph (in NumPy, or by a kernel) gives a first derivative
that is right and a second one that is silently zero; this sweep is the guard against that.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

X = np.array([[-1.3, -0.4, 0.2], [0.9, 1.7, 0.6]], dtype=np.float64)
P = np.abs(X) + 0.3

# Each a scalar function of a (2, 3) tensor ``x``, written once for both libraries (``l``).
OPS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "exp": lambda l, x: x.exp().sum(),
    "log": lambda l, x: x.abs().add(0.3).log().sum(),
    "sin": lambda l, x: x.sin().sum(),
    "tanh": lambda l, x: x.tanh().sum(),
    "sigmoid": lambda l, x: x.sigmoid().sum(),
    "sqrt": lambda l, x: (x*x+1).sqrt().sum(),
    "rsqrt": lambda l, x: (x*x+1).rsqrt().sum(),
    "reciprocal": lambda l, x: (x*x+1).reciprocal().sum(),
    "pow3": lambda l, x: x.pow(3).sum(),
    "powt": lambda l, x: (x*x+1).pow(x).sum(),
    "norm": lambda l, x: x.norm(),
    "norm_dim": lambda l, x: x.norm(dim=1).sum(),
    "norm3": lambda l, x: x.norm(p=3),
    "softmax": lambda l, x: (x.softmax(1)*l.tensor(P)).sum(),
    "log_softmax": lambda l, x: (x.log_softmax(1)*l.tensor(P)).sum(),
    "logsumexp": lambda l, x: x.logsumexp(1).sum(),
    "mean_var": lambda l, x: x.var(1).sum()+x.mean()**2,
    "std": lambda l, x: x.std(),
    "gelu": lambda l, x: l.nn.functional.gelu(x).sum(),
    "gelu_tanh": lambda l, x: l.nn.functional.gelu(x, approximate='tanh').sum(),
    "silu": lambda l, x: l.nn.functional.silu(x).sum(),
    "elu": lambda l, x: l.nn.functional.elu(x).sum(),
    "selu": lambda l, x: l.nn.functional.selu(x).sum(),
    "softplus": lambda l, x: l.nn.functional.softplus(x).sum(),
    "mish": lambda l, x: l.nn.functional.mish(x).sum(),
    "leaky": lambda l, x: (l.nn.functional.leaky_relu(x, 0.1)**2).sum(),
    "hardtanh": lambda l, x: (l.nn.functional.hardtanh(x)**2).sum(),
    "erf": lambda l, x: x.erf().sum(),
    "atan": lambda l, x: x.atan().sum(),
    "asinh": lambda l, x: x.asinh().sum(),
    "cosh": lambda l, x: x.cosh().sum(),
    "matmul": lambda l, x: (x @ x.t()).pow(2).sum(),
    "prod": lambda l, x: x.prod(),
    "prod_dim": lambda l, x: x.prod(1).sum(),
    "cumsum": lambda l, x: (x.cumsum(1)**2).sum(),
    "cumprod": lambda l, x: x.cumprod(1).sum(),
    "layer_norm": lambda l, x: (l.nn.functional.layer_norm(x,(3,))*l.tensor(P)).sum(),
    "mse": lambda l, x: l.nn.functional.mse_loss(x.sin(), l.tensor(P)),
    "ce": lambda l, x: l.nn.functional.cross_entropy(x, l.tensor([2,0])),
    "bce_logits": lambda l, x: l.nn.functional.binary_cross_entropy_with_logits(x, l.tensor(P)/3),
    "bce": lambda l, x: l.nn.functional.binary_cross_entropy(x.sigmoid(), l.tensor(P)/3),
    "smooth_l1": lambda l, x: l.nn.functional.smooth_l1_loss(x*2, l.tensor(P)),
    "huber": lambda l, x: l.nn.functional.huber_loss(x*2, l.tensor(P)),
    "kl": lambda l, x: l.nn.functional.kl_div(x.log_softmax(1), l.tensor(P).softmax(1), reduction='batchmean'),
    "nll": lambda l, x: l.nn.functional.nll_loss(x.log_softmax(1), l.tensor([1,2])),
    "cosine": lambda l, x: l.nn.functional.cosine_similarity(x, l.tensor(P)).sum(),
    "normalize": lambda l, x: (l.nn.functional.normalize(x)*l.tensor(P)).sum(),
    "amax": lambda l, x: (x.amax(1)**2).sum(),
    "max": lambda l, x: x.max()**2,
    "logsigmoid": lambda l, x: l.nn.functional.logsigmoid(x).sum(),
    "softsign": lambda l, x: l.nn.functional.softsign(x).sum(),
    "tan": lambda l, x: x.tan().sum(),
    "atan2": lambda l, x: l.atan2(x, l.tensor(P)).sum(),
    "div": lambda l, x: (l.tensor(P)/(x*x+1)).sum(),
    "hypot": lambda l, x: l.hypot(x, l.tensor(P)).sum(),
    "xlogy": lambda l, x: l.xlogy(x, l.tensor(P)).sum(),
    "lerp": lambda l, x: l.lerp(x*x, l.tensor(P), 0.3).sum(),
    "dist": lambda l, x: l.dist(x, l.tensor(P)),
    "trace": lambda l, x: (x @ x.t()).trace()**2,
    "det": lambda l, x: l.linalg.det(x @ x.t() + l.eye(2, dtype=x.dtype)),
    "inv": lambda l, x: l.linalg.inv(x @ x.t() + l.eye(2, dtype=x.dtype)).sum(),
    "logdet": lambda l, x: l.logdet(x @ x.t() + l.eye(2, dtype=x.dtype)),
    "einsum": lambda l, x: l.einsum('ij,kj->', x, x*x),
    "where": lambda l, x: l.where(x > 0, x*x, x.exp()).sum(),
    "clamp_sq": lambda l, x: (x.clamp(-1,1)**2).sum(),
    "expm1": lambda l, x: x.expm1().sum(),
    "log1p": lambda l, x: (x*x).log1p().sum(),
    "logit": lambda l, x: (x.sigmoid()).logit().pow(2).sum(),
    "sinc": lambda l, x: l.sinc(x).sum(),
    "erfinv": lambda l, x: (x.tanh()*0.9).erfinv().sum(),
    "conv1d": lambda l, x: l.nn.functional.conv1d(x.unsqueeze(0), x[:, :2].unsqueeze(0)).pow(2).sum(),
    "group_norm": lambda l, x: (l.nn.functional.group_norm(x.reshape(1,2,3), 2)*l.tensor(P).reshape(1,2,3)).sum(),
    "batch_norm": lambda l, x: (l.nn.functional.batch_norm(x, None, None, training=True)*l.tensor(P)).sum(),
    "rms_norm": lambda l, x: (l.nn.functional.rms_norm(x, (3,))*l.tensor(P)).sum(),
    "addcmul": lambda l, x: l.addcmul(x, x, x, value=0.5).sum(),
    "avg_pool": lambda l, x: l.nn.functional.avg_pool1d(x.unsqueeze(0), 2, 1).pow(2).sum(),
    "interp": lambda l, x: l.nn.functional.interpolate(x.unsqueeze(0), scale_factor=2, mode='linear').pow(2).sum(),
    "pad_reflect": lambda l, x: l.nn.functional.pad(x.unsqueeze(0), (1,1), mode='reflect').pow(3).sum(),
    "embedding": lambda l, x: l.nn.functional.embedding(l.tensor([1,0,1]), x).pow(3).sum(),
    "gather": lambda l, x: x.gather(1, l.tensor([[2,0],[1,1]])).pow(3).sum(),
    "index_select": lambda l, x: x.index_select(1, l.tensor([2,0,2])).pow(3).sum(),
    "masked": lambda l, x: x[x > 0].pow(3).sum(),
    "std_mean": lambda l, x: l.std_mean(x, 1)[0].sum(),
    "triplet": lambda l, x: l.nn.functional.triplet_margin_loss(x, x.flip(0), l.tensor(P)),
    "glu": lambda l, x: l.nn.functional.glu(x.repeat(1,2), 1).sum(),
    "sdpa": lambda l, x: l.nn.functional.scaled_dot_product_attention(x.unsqueeze(0), x.unsqueeze(0)*2, x.unsqueeze(0)).pow(2).sum(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_second_derivative_matches_pytorch(name: str, torch_ref: ModuleType) -> None:
    function = OPS[name]
    ours = minitorch.func.hessian(lambda x: function(minitorch, x))(minitorch.tensor(X)).numpy()
    theirs = torch_ref.autograd.functional.hessian(lambda x: function(torch_ref, x), torch_ref.tensor(X)).numpy()
    assert ours.shape == theirs.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["abs", "l1_loss", "norm_1"])
def test_a_zero_second_derivative_is_recorded_as_pytorch(name: str, torch_ref: ModuleType) -> None:
    """The gradient of ``|x|`` is ``sign(x)``: its own derivative is 0, but PyTorch records it,
    so differentiating the gradient again gives zeros, not an error."""
    functions = {"abs": lambda l, x: x.abs().sum(), "l1_loss": lambda l, x: l.nn.functional.l1_loss(x, l.zeros(2, 3)),
                 "norm_1": lambda l, x: x.norm(p=1)}
    for lib in (minitorch, torch_ref):
        x = lib.tensor(X, requires_grad=True)
        (gradient,) = lib.autograd.grad(functions[name](lib, x), x, create_graph=True)
        assert gradient.requires_grad
        (second,) = lib.autograd.grad(gradient.sum(), x)
        np.testing.assert_array_equal(second.numpy(force=True), np.zeros((2, 3)))  # PyTorch's is a ZeroTensor


@pytest.mark.parametrize("p", [0, 1, 1.5, 2, 3, float("inf")])
def test_pdist_values_and_gradients(p: float, torch_ref: ModuleType) -> None:
    """Rows 1 and 2 are equal: a zero distance, whose gradient is 0 (not NaN) as in PyTorch."""
    rows = np.vstack([X, X[1:2], -X[0:1]])
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(rows, requires_grad=True)
        distances = lib.nn.functional.pdist(x, p)
        (distances * lib.arange(6.0, dtype=lib.float64)).sum().backward()
        results.append((distances.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("shape", [(3,), (2, 2, 2)])
def test_pdist_takes_matrices_only(shape: tuple[int, ...], torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError, match=f"2D tensors, got: {len(shape)}D"):
            lib.pdist(lib.ones(*shape))


def test_dist_is_a_function_too(torch_ref: ModuleType) -> None:
    results = [lib.dist(lib.tensor(X), lib.tensor(P), 3).item() for lib in (minitorch, torch_ref)]
    assert results[0] == pytest.approx(results[1], rel=1e-12)


KINKS: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "softplus": lambda l, x, y: l.nn.functional.softplus(x).sum(),
    "softplus_beta_threshold": lambda l, x, y: l.nn.functional.softplus(x, beta=2.0, threshold=1.5).sum(),
    "bce_with_logits": lambda l, x, y: l.nn.functional.binary_cross_entropy_with_logits(x, y.abs().clamp(0, 1)),
    "xlogy": lambda l, x, y: l.xlogy(x, y).sum(),
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_derivatives_where_a_stable_formula_bends(name: str, torch_ref: ModuleType) -> None:
    """At ``x = 0`` the overflow-safe softplus, :math:`\\max(s, 0) + \\log(1 + e^{-|s|})`, bends in both
    pieces and a ``where`` that writes 0 for :math:`x \\log y` at ``x = 0`` hides :math:`\\log y`: the
    derivatives there are written out, as PyTorch's (:math:`\\sigma(0) = 1/2`, :math:`\\log y`)."""
    x_values = np.array([0.0, 0.0, -1.5, 0.5, 2.0], dtype=np.float64)
    y_values = np.array([2.0, 0.0, 0.5, 3.0, 0.25], dtype=np.float64)
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(x_values, requires_grad=True)
        y = lib.tensor(y_values, requires_grad=True)
        (grad_x, grad_y) = lib.autograd.grad(KINKS[name](lib, x, y), (x, y), create_graph=True, allow_unused=True)
        (second,) = lib.autograd.grad(grad_x.sum(), x, allow_unused=True)
        results.append([None if g is None else g.detach().numpy(force=True) for g in (grad_x, grad_y, second)])
    for ours, theirs in zip(*results):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
