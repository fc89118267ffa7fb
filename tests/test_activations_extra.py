"""The further activations (ELU family, hard and shrink functions, PReLU, Mish, log-sigmoid,
softmin, GLU, Softmax2d), normalize, cosine similarity, pairwise distance, Bilinear and alpha
dropout: float64 values and gradients against PyTorch (kinks and large inputs included),
central differences, in-place forms, module reprs and state, errors."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, theirs, values

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

#: name -> the call, as a function of (F-module, x); the same call runs in both frameworks
ACTIVATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "elu": lambda f, x: f.elu(x),
    "elu_alpha": lambda f, x: f.elu(x, alpha=2.5),
    "selu": lambda f, x: f.selu(x),
    "celu": lambda f, x: f.celu(x),
    "celu_alpha": lambda f, x: f.celu(x, alpha=0.5),
    "hardtanh": lambda f, x: f.hardtanh(x),
    "hardtanh_bounds": lambda f, x: f.hardtanh(x, -3.0, 6.0),
    "relu6": lambda f, x: f.relu6(x),
    "hardswish": lambda f, x: f.hardswish(x),
    "hardsigmoid": lambda f, x: f.hardsigmoid(x),
    "mish": lambda f, x: f.mish(x),
    "softsign": lambda f, x: f.softsign(x),
    "logsigmoid": lambda f, x: f.logsigmoid(x),
    "tanhshrink": lambda f, x: f.tanhshrink(x),
    "softshrink": lambda f, x: f.softshrink(x),
    "softshrink_1": lambda f, x: f.softshrink(x, 1.0),
    "hardshrink": lambda f, x: f.hardshrink(x),
    "hardshrink_3": lambda f, x: f.hardshrink(x, 3.0),
    "threshold": lambda f, x: f.threshold(x, 1.0, -2.0),
    "softmin": lambda f, x: f.softmin(x, dim=-1),
    "glu": lambda f, x: f.glu(x, 0),
}
#: every kink of the functions above (0, ±0.5, ±1, ±3, 6), and inputs large enough to overflow exp
KINKS = [-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0]
LARGE = [-800.0, -50.0, -20.5, 20.5, 50.0, 800.0]
#: float64 agreement where the two compute the same expression
EXACT = {"atol": 1e-300, "rtol": 1e-12}
#: PyTorch's hardsigmoid backward uses 1/6 rounded to float32 (about 3e-8 off); ours is exact
HARDSIGMOID_GRADIENT_RTOL = 1e-7


def grid() -> np.ndarray:
    """The kinks, the large values and random values, as a (2, 16) array (even rows for glu)."""
    spread = np.random.default_rng(0).uniform(-4.0, 4.0, size=32 - len(KINKS) - len(LARGE))
    return np.concatenate([KINKS, LARGE, spread]).reshape(2, 16)


def _grad_of(fn: Callable[[Any], Any], x: Any, weights: Any) -> Any:
    (fn(x) * weights).sum().backward()
    return x.grad


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_and_gradients_match_torch(torch_ref, name: str) -> None:
    fn = ACTIVATIONS[name]
    x = grid()
    mine, ref = ours(x, grad=True), theirs(torch_ref, x, grad=True)
    out, expected = fn(F, mine), fn(torch_ref.nn.functional, ref)
    assert_close(out, expected, **EXACT)
    weights = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    (out * ours(weights)).sum().backward()
    (expected * torch_ref.tensor(weights)).sum().backward()
    grad_rtol = HARDSIGMOID_GRADIENT_RTOL if name == "hardsigmoid" else EXACT["rtol"]
    assert_close(mine.grad, ref.grad, atol=EXACT["atol"], rtol=grad_rtol, what="gradient")


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradcheck(name: str) -> None:
    x = np.random.default_rng(2).uniform(-4.0, 4.0, size=(4, 5))
    x = np.where(np.min(np.abs(x[..., None] - np.array(KINKS)), axis=-1) < 0.05, 0.25, x)  # away from kinks
    gradcheck(lambda t: ACTIVATIONS[name](F, t), ours(x, grad=True))


def test_kink_slopes_are_torchs(torch_ref) -> None:
    """The one-sided slope each kink takes, spelled out: PyTorch's choices."""
    at = minitorch.tensor([-1.0, 0.0, 1.0, 6.0], dtype=minitorch.float64, requires_grad=True)
    F.relu6(at).sum().backward()
    assert at.grad.tolist() == [0.0, 0.0, 1.0, 0.0]
    at.grad = None
    F.hardtanh(at).sum().backward()
    assert at.grad.tolist() == [0.0, 1.0, 0.0, 0.0]
    at.grad = None
    F.elu(at, alpha=2.0).sum().backward()
    assert at.grad.tolist()[:3] == [2.0 * np.exp(-1.0), 2.0, 1.0]


def test_large_inputs_stay_finite() -> None:
    x = ours(np.array([-1000.0, -60.0, 60.0, 1000.0]), grad=True)
    for fn in (F.logsigmoid, F.elu, F.selu, F.celu, F.mish):
        x.grad = None
        out = fn(x)
        out.sum().backward()
        assert np.isfinite(values(out)).all() and np.isfinite(values(x.grad)).all(), fn.__name__
    assert values(F.logsigmoid(x)).tolist()[0] == -1000.0


def test_nan_propagates_like_torch(torch_ref) -> None:
    x = np.array([np.nan, 1.0])
    for name in ("hardtanh", "hardshrink", "softshrink", "threshold", "elu", "hardswish"):
        assert_close(ACTIVATIONS[name](F, ours(x)), ACTIVATIONS[name](torch_ref.nn.functional, theirs(torch_ref, x)),
                     what=name)


@pytest.mark.parametrize("name, args", [
    ("elu", (0.7,)), ("celu", (1.5,)), ("selu", ()), ("hardtanh", (-0.5, 2.0)), ("threshold", (0.2, 9.0)),
])
def test_in_place_forms_overwrite_their_input(torch_ref, name: str, args: tuple[float, ...]) -> None:
    x = grid()
    mine, ref = ours(x), theirs(torch_ref, x)
    out = getattr(F, name + "_")(mine, *args)
    getattr(torch_ref.nn.functional, name + "_")(ref, *args)
    assert out is mine
    assert_close(mine, ref, **EXACT)
    flagged = ours(x)
    assert getattr(F, name)(flagged, *args, inplace=True) is flagged


def test_inplace_keyword_of_the_rest(torch_ref) -> None:
    for name in ("relu6", "hardswish", "hardsigmoid", "mish"):
        x = ours(grid())
        expected = getattr(torch_ref.nn.functional, name)(theirs(torch_ref, grid()))
        assert getattr(F, name)(x, inplace=True) is x
        assert_close(x, expected, rtol=1e-12, what=name)


def test_in_place_on_a_graph_tensor_differentiates(torch_ref) -> None:
    x = grid()
    mine, ref = ours(x, grad=True), theirs(torch_ref, x, grad=True)
    F.elu_(mine * 1.0, 0.5).sum().backward()
    torch_ref.nn.functional.elu_(ref * 1.0, 0.5).sum().backward()
    # PyTorch's in-place ELU differentiates through its output (e^x as output + alpha), which
    # rounds the far-left slopes to 0; ours keeps them, so they agree to an absolute 1e-15
    assert_close(mine.grad, ref.grad, atol=1e-15, rtol=1e-12)


@pytest.mark.parametrize("channels", [1, 3])
def test_prelu_matches_torch_with_weight_gradients(torch_ref, channels: int) -> None:
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 4)), rng.uniform(0.0, 0.5, size=channels)
    x[0, 0, :2] = 0.0  # the kink: slope a, as PyTorch
    compare_with_torch(torch_ref, F.prelu, torch_ref.nn.functional.prelu, [x, w], grad=[0, 1], **EXACT)


def test_prelu_module(torch_ref) -> None:
    layer, reference = nn.PReLU(3, init=0.1), torch_ref.nn.PReLU(3, init=0.1)
    assert list(layer.state_dict()) == list(reference.state_dict()) == ["weight"]
    assert layer.weight.tolist() == pytest.approx([0.1] * 3)
    assert repr(layer) == repr(reference) == "PReLU(num_parameters=3)"
    x = ours(np.random.default_rng(4).standard_normal((5, 3)))
    layer.weight.data = ours(np.array([0.1, 0.2, 0.3]))
    layer(x).sum().backward()
    negatives = np.minimum(values(x), 0.0).sum(axis=0)
    np.testing.assert_allclose(values(layer.weight.grad), negatives, rtol=1e-12)


def test_softmin_matches_torch_and_warns_without_dim(torch_ref) -> None:
    x = np.random.default_rng(5).standard_normal((3, 4))
    compare_with_torch(torch_ref, lambda t: F.softmin(t, 1), lambda t: torch_ref.nn.functional.softmin(t, 1),
                       [x], grad=[0], **EXACT)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        implicit = F.softmin(ours(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(implicit, torch_ref.nn.functional.softmin(theirs(torch_ref, x)), **EXACT)


def test_softmax2d_normalises_channels(torch_ref) -> None:
    x = np.random.default_rng(6).standard_normal((2, 3, 4, 5))
    for batch in (x, x[0]):
        compare_with_torch(torch_ref, nn.Softmax2d(), torch_ref.nn.Softmax2d(), [batch], grad=[0], **EXACT)


#: (our constructor call, torch's) for the repr comparison: the same arguments
MODULES = [
    ("ELU", ()), ("ELU", (0.5, True)), ("SELU", ()), ("SELU", (True,)), ("CELU", (2.0,)), ("CELU", (1.0, True)),
    ("Hardtanh", ()), ("Hardtanh", (-2, 3, True)), ("ReLU6", ()), ("ReLU6", (True,)), ("Hardswish", (True,)),
    ("Hardsigmoid", ()), ("Mish", (True,)), ("Softsign", ()), ("LogSigmoid", ()), ("Tanhshrink", ()),
    ("Softmin", ()), ("Softmin", (1,)), ("Threshold", (0.1, 20)), ("Threshold", (0.1, 20.0, True)), ("GLU", ()),
    ("GLU", (1,)), ("Softmax2d", ()), ("Softshrink", ()), ("Hardshrink", (0.3,)), ("PReLU", ()),
    ("CosineSimilarity", ()), ("PairwiseDistance", (1.0, 1e-3, True)), ("AlphaDropout", ()),
    ("AlphaDropout", (0.2, True)), ("Bilinear", (2, 3, 4)), ("Bilinear", (2, 3, 4, False)),
]


@pytest.mark.parametrize("name, args", MODULES)
def test_module_repr_matches_torch(torch_ref, name: str, args: tuple[Any, ...]) -> None:
    assert repr(getattr(nn, name)(*args)) == repr(getattr(torch_ref.nn, name)(*args))


@pytest.mark.parametrize("name, args", [
    ("ELU", (0.5,)), ("SELU", ()), ("CELU", (0.5,)), ("Hardtanh", (-3.0, 6.0)), ("ReLU6", ()), ("Hardswish", ()),
    ("Mish", ()), ("Softsign", ()), ("LogSigmoid", ()), ("Tanhshrink", ()), ("Softmin", (-1,)),
    ("Threshold", (1.0, -2.0)), ("GLU", (0,)), ("Softshrink", (1.0,)), ("Hardshrink", (3.0,)), ("Hardsigmoid", ()),
])
def test_module_forward_matches_torch(torch_ref, name: str, args: tuple[Any, ...]) -> None:
    compare_with_torch(torch_ref, getattr(nn, name)(*args), getattr(torch_ref.nn, name)(*args), [grid()], **EXACT)


def test_module_inplace_overwrites(torch_ref) -> None:
    x = ours(grid())
    assert nn.ELU(inplace=True)(x) is x
    assert_close(x, torch_ref.nn.functional.elu(theirs(torch_ref, grid())), **EXACT)


def test_hardtanh_deprecated_keywords(torch_ref) -> None:
    with pytest.warns(FutureWarning, match="`min_value` is deprecated and renamed to `min_val`"):
        layer = nn.Hardtanh(min_value=-3.0)
    assert (layer.min_val, layer.max_val) == (-3.0, 1.0)


@pytest.mark.parametrize("call", [
    lambda f, t, x: f.hardtanh(x, 2.0, 1.0),
    lambda f, t, x: f.softshrink(x, -1.0),
    lambda f, t, x: f.glu(x, 1),
    lambda f, t, x: f.glu(t.tensor(1.0)),
    lambda f, t, x: f.celu(x, 0.0),
    lambda f, t, x: f.prelu(x, t.ones(3, dtype=t.float64)),
    lambda f, t, x: f.prelu(t.tensor(1.0), t.ones(3)),
    lambda f, t, x: t.nn.Hardtanh(2.0, 1.0),
    lambda f, t, x: t.nn.Softmax2d()(x),
    lambda f, t, x: f.alpha_dropout(x, 1.5, True),
    lambda f, t, x: t.nn.AlphaDropout(-1),
    lambda f, t, x: f.normalize(t.tensor(1.0)),
])
def test_errors_match_torch(torch_ref, call: Callable[..., Any]) -> None:
    x = np.random.default_rng(7).standard_normal((2, 5))
    assert_same_error(lambda: call(F, minitorch, ours(x)),
                      lambda: call(torch_ref.nn.functional, torch_ref, theirs(torch_ref, x)))


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "hardswish", "hardsigmoid", "mish", "logsigmoid",
                                  "softshrink"])
def test_integer_input_is_refused_as_by_torch(torch_ref, name: str) -> None:
    with pytest.raises(NotImplementedError) as expected:
        getattr(torch_ref.nn.functional, name)(torch_ref.tensor([1, 2]))
    with pytest.raises(NotImplementedError) as mine:
        getattr(F, name)(minitorch.tensor([1, 2]))
    assert str(mine.value) == str(expected.value)


@pytest.mark.parametrize("p, dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize_matches_torch(torch_ref, p: float, dim: int) -> None:
    x = np.random.default_rng(8).standard_normal((3, 4))
    x[1] = 0.0  # a zero vector: divided by eps, not by 0
    compare_with_torch(torch_ref, lambda t: F.normalize(t, p, dim),
                       lambda t: torch_ref.nn.functional.normalize(t, p, dim), [x], grad=[0], **EXACT)


def test_cosine_similarity_and_pairwise_distance_modules(torch_ref) -> None:
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    compare_with_torch(torch_ref, nn.CosineSimilarity(dim=0), torch_ref.nn.CosineSimilarity(dim=0), [a, b],
                       grad=[0, 1], rtol=1e-12)
    for p, keepdim in ((2.0, False), (1.0, True), (3.0, False)):
        compare_with_torch(torch_ref, nn.PairwiseDistance(p, keepdim=keepdim),
                           torch_ref.nn.PairwiseDistance(p, keepdim=keepdim), [a, b], grad=[0, 1], rtol=1e-12)


def test_bilinear_module_matches_torch(torch_ref) -> None:
    layer = nn.Bilinear(3, 4, 2, dtype=minitorch.float64)
    reference = torch_ref.nn.Bilinear(3, 4, 2, dtype=torch_ref.float64)
    assert list(layer.state_dict()) == list(reference.state_dict()) == ["weight", "bias"]
    assert tuple(layer.weight.shape) == (2, 3, 4)
    bound = 1 / np.sqrt(3)
    assert np.abs(values(layer.weight)).max() <= bound and np.abs(values(layer.bias)).max() <= bound
    with torch_ref.no_grad():
        reference.weight.copy_(torch_ref.tensor(values(layer.weight)))
        reference.bias.copy_(torch_ref.tensor(values(layer.bias)))
    rng = np.random.default_rng(10)
    compare_with_torch(torch_ref, layer, reference, [rng.standard_normal((5, 3)), rng.standard_normal((5, 4))],
                       grad=[0, 1], rtol=1e-12)
    assert nn.Bilinear(3, 4, 2, bias=False).bias is None


@pytest.mark.parametrize("shapes", [
    ((2, 3), (2, 4), (5, 3, 4), (6,)), ((2, 3), (3, 4), (5, 3, 4), None), ((2, 2), (2, 4), (5, 3, 4), None),
    ((2, 3), (2, 2, 4), (5, 3, 4), None), ((2, 3), (2, 5), (5, 3, 4), None),
])
def test_bilinear_size_errors_match_torch(torch_ref, shapes: tuple[Any, ...]) -> None:
    rng = np.random.default_rng(12)
    arrays = [None if s is None else rng.standard_normal(s) for s in shapes]
    assert_same_error(
        lambda: F.bilinear(*(None if a is None else ours(a) for a in arrays)),
        lambda: torch_ref.nn.functional.bilinear(*(None if a is None else theirs(torch_ref, a) for a in arrays)),
    )


def test_alpha_dropout_is_identity_in_eval_and_keeps_selu_statistics() -> None:
    x = ours(np.random.default_rng(11).standard_normal((400, 500)))
    layer = nn.AlphaDropout(0.2)
    layer.eval()
    assert layer(x) is x
    assert F.alpha_dropout(x, 0.2) is x  # training=False is the functional default
    minitorch.manual_seed(0)
    out = values(F.alpha_dropout(x, 0.2, training=True))
    source = values(x)
    scale = ((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8) ** -0.5
    dropped = np.isclose(out, -1.7580993408473766 * scale * 0.8, rtol=1e-12)  # every dropped element: a alpha' + b
    assert abs(dropped.mean() - 0.2) < 0.005
    # with N(0, 1) input the mean stays 0 and the variance 1 (standard errors ~0.0014)
    assert abs(out.mean() - source.mean()) < 0.01 and abs(out.var() - source.var()) < 0.02
    kept = ~dropped
    np.testing.assert_allclose(out[kept], scale * source[kept] + scale * 1.7580993408473766 * 0.2, rtol=1e-12)
    assert values(F.alpha_dropout(x, 1.0, training=True)).max() == 0.0


def test_class_hierarchy_is_torchs(torch_ref) -> None:
    """``isinstance`` answers as in PyTorch (``ReLU6`` is a ``Hardtanh``; ``CELU`` is no ``ELU``)."""
    names = {name for name, _ in MODULES} | {"ReLU", "Softmax", "LeakyReLU"}
    for a in names:
        for b in names:
            ours_says = issubclass(getattr(nn, a), getattr(nn, b))
            assert ours_says == issubclass(getattr(torch_ref.nn, a), getattr(torch_ref.nn, b)), (a, b)


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "mish", "logsigmoid", "softsign", "tanhshrink", "hardswish"])
def test_second_derivatives_match_torch(torch_ref, name: str) -> None:
    """Away from the kinks (where the second derivative is a matter of convention)."""
    x = np.array([-30.0, -2.0, -0.5, 0.3, 0.7, 2.5, 30.0])
    mine, ref = ours(x, grad=True), theirs(torch_ref, x, grad=True)
    (slope,) = minitorch.autograd.grad(ACTIVATIONS[name](F, mine).sum(), [mine], create_graph=True)
    (curvature,) = minitorch.autograd.grad(slope.sum(), [mine])
    (t_slope,) = torch_ref.autograd.grad(ACTIVATIONS[name](torch_ref.nn.functional, ref).sum(), [ref], create_graph=True)
    (t_curvature,) = torch_ref.autograd.grad(t_slope.sum(), [ref])
    assert_close(curvature, t_curvature, atol=1e-15, rtol=1e-12, what="second derivative")
