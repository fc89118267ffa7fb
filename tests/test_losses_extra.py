"""The further losses (issue 19) against PyTorch in float64: values for every reduction, gradients
of every differentiable argument, modules, grad_fn names and error messages; and cross_entropy
with label smoothing, class weights and ignore_index together."""

from __future__ import annotations

import math
import warnings
from functools import partial

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, assert_same_error, compare_with_torch, ours, theirs, values

import minitorch
import minitorch.nn.functional as F

REDUCTIONS = ["mean", "sum", "none"]
EXACT = {"atol": 1e-13, "rtol": 1e-12}


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def signs(n: int, seed: int = 3) -> np.ndarray:
    return np.where(rng(seed).random(n) < 0.5, -1.0, 1.0)


def log_probs(shape=(3, 5), seed=0) -> np.ndarray:
    x = rng(seed).standard_normal(shape)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


# ---- kl_div ----

@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_torch(torch_ref, reduction: str, log_target: bool) -> None:
    target = log_probs(seed=1) if log_target else np.exp(log_probs(seed=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_with_torch(
            torch_ref, lambda x, t: F.kl_div(x, t, reduction=reduction, log_target=log_target),
            lambda x, t: torch_ref.nn.functional.kl_div(x, t, reduction=reduction, log_target=log_target),
            [log_probs(), target], grad=[0, 1], **EXACT,
        )


def test_kl_div_zero_probability(torch_ref) -> None:
    r"""A zero target probability contributes 0 and the input's gradient there is 0, as in torch. The
    target's gradient there is NaN, as torch's (its :math:`q \log q` is ``xlogy(q, q)``)."""
    target = np.exp(log_probs(seed=1))
    target[0, 2] = 0.0
    compare_with_torch(torch_ref, lambda x, t: F.kl_div(x, t, reduction="sum"),
                       lambda x, t: torch_ref.nn.functional.kl_div(x, t, reduction="sum"),
                       [log_probs(), target], grad=[0], **EXACT)
    t = ours(target, grad=True)
    F.kl_div(ours(log_probs()), t, reduction="sum").backward()
    assert np.isnan(values(t.grad)[0, 2])
    theirs = torch_ref.tensor(target, requires_grad=True)
    torch_ref.nn.functional.kl_div(torch_ref.tensor(log_probs()), theirs, reduction="sum").backward()
    np.testing.assert_array_equal(values(t.grad), theirs.grad.numpy())


def test_kl_div_mean_warns_as_torch(torch_ref) -> None:
    x, t = log_probs(), np.exp(log_probs(seed=1))
    with pytest.warns(UserWarning) as ours_w:
        F.kl_div(ours(x), ours(t))
    with pytest.warns(UserWarning) as theirs_w:
        torch_ref.nn.functional.kl_div(theirs(torch_ref, x), theirs(torch_ref, t))
    assert str(ours_w[0].message) == str(theirs_w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.kl_div(ours(x), ours(t), reduction="batchmean")  # no warning


def test_kl_div_module_and_batchmean_by_hand() -> None:
    q = np.array([[0.25, 0.75], [0.5, 0.5]])
    x = np.log(np.array([[0.5, 0.5], [0.9, 0.1]]))
    expected = (q * (np.log(q) - x)).sum() / 2
    out = minitorch.nn.KLDivLoss(reduction="batchmean")(ours(x), ours(q))
    assert out.item() == pytest.approx(expected, rel=1e-14)


# ---- margin and embedding losses ----

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3, -0.2])
def test_cosine_embedding_loss_matches_torch(torch_ref, reduction: str, margin: float) -> None:
    a, b = rng(1).standard_normal((6, 4)), rng(2).standard_normal((6, 4))
    b[1] = a[1] * 2.0  # cos = 1
    compare_with_torch(
        torch_ref, lambda x, y, t: F.cosine_embedding_loss(x, y, t, margin, reduction=reduction),
        lambda x, y, t: torch_ref.nn.functional.cosine_embedding_loss(x, y, t, margin, reduction=reduction),
        [a, b, signs(6)], grad=[0, 1], **EXACT,
    )


def test_cosine_embedding_loss_single_pair(torch_ref) -> None:
    a, b = rng(1).standard_normal(4), rng(2).standard_normal(4)
    compare_with_torch(
        torch_ref, lambda x, y: F.cosine_embedding_loss(x, y, ours(np.array(-1.0)), -0.5),
        lambda x, y: torch_ref.nn.functional.cosine_embedding_loss(x, y, theirs(torch_ref, np.array(-1.0)), -0.5),
        [a, b], grad=[0, 1], **EXACT,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_loss_matches_torch(torch_ref, reduction: str) -> None:
    compare_with_torch(
        torch_ref, lambda x, y, t: F.margin_ranking_loss(x, y, t, 0.4, reduction=reduction),
        lambda x, y, t: torch_ref.nn.functional.margin_ranking_loss(x, y, t, 0.4, reduction=reduction),
        [rng(1).standard_normal(7), rng(2).standard_normal(7), signs(7)], grad=[0, 1, 2], **EXACT,
    )


@pytest.mark.parametrize("p", [1, 2, 3, math.inf])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_matches_torch(torch_ref, p: float, swap: bool) -> None:
    a, pos, neg = (rng(s).standard_normal((5, 3)) for s in (1, 2, 3))
    compare_with_torch(
        torch_ref, lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=1.5, p=p, eps=1e-3, swap=swap),
        lambda x, y, z: torch_ref.nn.functional.triplet_margin_loss(x, y, z, margin=1.5, p=p, eps=1e-3, swap=swap),
        [a, pos, neg], grad=[0, 1, 2], **EXACT,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_loss_reductions_and_1d(torch_ref, reduction: str) -> None:
    for shape in ((5, 3), (3,)):
        a, pos, neg = (rng(s).standard_normal(shape) for s in (4, 5, 6))
        compare_with_torch(
            torch_ref, lambda x, y, z: F.triplet_margin_loss(x, y, z, reduction=reduction),
            lambda x, y, z: torch_ref.nn.functional.triplet_margin_loss(x, y, z, reduction=reduction),
            [a, pos, neg], grad=[0, 1, 2], **EXACT,
        )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss_matches_torch(torch_ref, reduction: str) -> None:
    target = signs(12).reshape(3, 4)
    target[0, 0] = 0.5  # neither 1 nor -1: both terms count, as in PyTorch
    compare_with_torch(
        torch_ref, lambda x, t: F.hinge_embedding_loss(x, t, 0.7, reduction=reduction),
        lambda x, t: torch_ref.nn.functional.hinge_embedding_loss(x, t, 0.7, reduction=reduction),
        [rng(1).standard_normal((3, 4)), target], grad=[0], **EXACT,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss_matches_torch(torch_ref, reduction: str) -> None:
    x = rng(1).standard_normal((3, 4)) * 5
    compare_with_torch(
        torch_ref, lambda a, t: F.soft_margin_loss(a, t, reduction=reduction),
        lambda a, t: torch_ref.nn.functional.soft_margin_loss(a, t, reduction=reduction),
        [x, signs(12).reshape(3, 4)], grad=[0], **EXACT,
    )
    target = ours(signs(4), grad=True)
    assert_same_error(lambda: F.soft_margin_loss(ours(x[0]), target),
                      lambda: torch_ref.nn.functional.soft_margin_loss(theirs(torch_ref, x[0]),
                                                                       theirs(torch_ref, signs(4), grad=True)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss_matches_torch(torch_ref, reduction: str, p: int, weighted: bool) -> None:
    x, target = rng(1).standard_normal((4, 5)), np.array([0, 4, 2, 2])
    weight = np.array([0.5, 1.0, 2.0, 0.3, 1.5]) if weighted else None
    compare_with_torch(
        torch_ref,
        lambda a: F.multi_margin_loss(a, ours(target), p, 0.8, None if weight is None else ours(weight),
                                      reduction=reduction),
        lambda a: torch_ref.nn.functional.multi_margin_loss(
            a, theirs(torch_ref, target), p, 0.8, None if weight is None else theirs(torch_ref, weight),
            reduction=reduction),
        [x], grad=[0], **EXACT,
    )


def test_multi_margin_loss_one_sample(torch_ref) -> None:
    x = rng(2).standard_normal(5)
    for target in (np.array(3), np.array([3])):
        compare_with_torch(
            torch_ref, lambda a: F.multi_margin_loss(a, ours(target), reduction="none"),
            lambda a: torch_ref.nn.functional.multi_margin_loss(a, theirs(torch_ref, target), reduction="none"),
            [x], grad=[0], **EXACT,
        )


# ---- likelihoods ----

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll_loss_matches_torch(torch_ref, reduction: str, log_input: bool, full: bool) -> None:
    x = rng(1).standard_normal((3, 4))
    if not log_input:
        x = np.abs(x) + 0.1
    counts = np.array([[0, 1, 2, 5], [0.5, 3, 7, 1.5], [1, 0, 4, 10]])
    grad = [0, 1] if not full else [0]  # log(0) in the Stirling term makes d/dtarget NaN at a 0 count
    compare_with_torch(
        torch_ref, lambda a, t: F.poisson_nll_loss(a, t, log_input=log_input, full=full, reduction=reduction),
        lambda a, t: torch_ref.nn.functional.poisson_nll_loss(a, t, log_input=log_input, full=full,
                                                              reduction=reduction),
        [x, counts], grad=grad, **EXACT,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1), (1, 3)])
def test_gaussian_nll_loss_matches_torch(torch_ref, reduction: str, full: bool, var_shape: tuple) -> None:
    var = np.abs(rng(3).standard_normal(var_shape)) + 0.05
    var.flat[0] = 1e-9  # below eps: clamped, the gradient still reaches it
    compare_with_torch(
        torch_ref, lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=full, reduction=reduction),
        lambda x, y, v: torch_ref.nn.functional.gaussian_nll_loss(x, y, v, full=full, reduction=reduction),
        [rng(1).standard_normal((4, 3)), rng(2).standard_normal((4, 3)), var], grad=[0, 1, 2], **EXACT,
    )


def test_gaussian_nll_loss_float_variance(torch_ref) -> None:
    compare_with_torch(
        torch_ref, lambda x, y: F.gaussian_nll_loss(x, y, 0.7, eps=1e-3),
        lambda x, y: torch_ref.nn.functional.gaussian_nll_loss(x, y, 0.7, eps=1e-3),
        [rng(1).standard_normal(5), rng(2).standard_normal(5)], grad=[0, 1], **EXACT,
    )


# ---- central differences, independent of torch ----

@pytest.mark.parametrize("name", ["soft_margin", "triplet", "cosine", "poisson", "gaussian", "kl"])
def test_gradients_by_central_differences(name: str) -> None:
    t = signs(6).reshape(2, 3)
    calls = {
        "soft_margin": (lambda x: F.soft_margin_loss(x, ours(t)), rng(1).standard_normal((2, 3))),
        "triplet": (lambda x: F.triplet_margin_loss(x, ours(np.zeros((2, 3))), ours(np.ones((2, 3))), margin=5.0),
                    rng(1).standard_normal((2, 3))),
        "cosine": (lambda x: F.cosine_embedding_loss(x, ours(np.ones((2, 3))), ours(np.array([1.0, -1.0]))),
                   rng(1).standard_normal((2, 3))),
        "poisson": (lambda x: F.poisson_nll_loss(x, ours(np.full((2, 3), 3.0)), full=True),
                    rng(1).standard_normal((2, 3))),
        "gaussian": (lambda v: F.gaussian_nll_loss(ours(np.zeros((2, 3))), ours(np.ones((2, 3))), v),
                     np.abs(rng(1).standard_normal((2, 3))) + 0.5),
        "kl": (lambda x: F.kl_div(x, ours(np.full((2, 3), 1 / 3)), reduction="batchmean"), log_probs((2, 3))),
    }
    fn, x = calls[name]
    gradcheck(fn, ours(x, grad=True))


# ---- modules, names, errors ----

MODULES = [
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, 2),
    ("CosineEmbeddingLoss", {"margin": 0.2, "reduction": "sum"}, 3),
    ("MarginRankingLoss", {"margin": 0.1}, 3),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True}, 3),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "none"}, 2),
    ("SoftMarginLoss", {}, 2),
    ("PoissonNLLLoss", {"log_input": False, "full": True}, 2),
    ("GaussianNLLLoss", {"full": True, "eps": 1e-2}, 3),
]


@pytest.mark.parametrize("name,kwargs,arity", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_torch(torch_ref, name: str, kwargs: dict, arity: int) -> None:
    shape = (4, 3) if name not in ("MarginRankingLoss",) else (4,)
    arrays = [np.abs(rng(s).standard_normal(shape)) + 0.1 for s in range(arity)]
    if name in ("CosineEmbeddingLoss", "MarginRankingLoss"):
        arrays[-1] = signs(4)
    if name == "HingeEmbeddingLoss":
        arrays[-1] = signs(12).reshape(4, 3)
    mine, ref = getattr(minitorch.nn, name)(**kwargs), getattr(torch_ref.nn, name)(**kwargs)
    assert repr(mine) == repr(ref)
    compare_with_torch(torch_ref, mine, ref, arrays, grad=[0], **EXACT)


def test_multi_margin_module_holds_weight_as_buffer(torch_ref) -> None:
    weight = np.array([1.0, 2.0, 0.5])
    mine = minitorch.nn.MultiMarginLoss(p=2, weight=ours(weight))
    assert "weight" in dict(mine.named_buffers())
    x, target = rng(1).standard_normal((4, 3)), np.array([0, 2, 1, 1])
    expected = torch_ref.nn.MultiMarginLoss(p=2, weight=theirs(torch_ref, weight))(
        theirs(torch_ref, x), theirs(torch_ref, target))
    assert_close(mine(ours(x), ours(target)), expected, **EXACT)


def _loss_outputs(lib, functional, x, y, t) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            functional.kl_div(x, functional.softmax(y, 1), reduction="batchmean"),
            functional.kl_div(x, y, log_target=True), functional.cosine_embedding_loss(x, y, t),
            functional.margin_ranking_loss(x[:, 0], y[:, 0], t), functional.triplet_margin_loss(x, y, y * 2),
            functional.hinge_embedding_loss(x, y.sign()), functional.poisson_nll_loss(x, y.abs()),
            functional.gaussian_nll_loss(x, y, y.abs()), functional.soft_margin_loss(x, y.sign()),
            functional.multi_margin_loss(x, lib.tensor([0, 1, 3])),
            functional.embedding_bag(lib.tensor([1, 2, 0]), x, lib.tensor([0, 1])),
            functional.embedding_bag(lib.tensor([1, 2, 0]), x, lib.tensor([0, 1]), mode="max"),
        ]


def test_grad_fn_names_as_torch(torch_ref) -> None:
    """One node where torch has one (soft/multi margin, embedding_bag); the same last op elsewhere."""
    a, b = rng(1).standard_normal((3, 4)), rng(2).standard_normal((3, 4))
    names = [[type(out.grad_fn).__name__ for out in _loss_outputs(lib, functional, make(a, grad=True), make(b),
                                                                  make(signs(3)))]
             for lib, functional, make in ((minitorch, F, ours),
                                           (torch_ref, torch_ref.nn.functional, partial(theirs, torch_ref)))]
    assert names[0] == names[1]
    assert "SoftMarginLossBackward0" in names[0] and "EmbeddingBagBackward0" in names[0]


def _both(torch_ref, arrays):
    return [ours(a) for a in arrays], [theirs(torch_ref, a) for a in arrays]


ERRORS = {
    "cosine_target_2d": ("cosine_embedding_loss", [(3, 4), (3, 4), (3, 1)], {}),
    "cosine_1d_target_1d_inputs": ("cosine_embedding_loss", [(4,), (4,), (1,)], {}),
    "cosine_3d_inputs": ("cosine_embedding_loss", [(2, 3, 4), (2, 3, 4), (2,)], {}),
    "cosine_reduction": ("cosine_embedding_loss", [(3, 4), (3, 4), (3,)], {"reduction": "avg"}),
    "ranking_dims": ("margin_ranking_loss", [(3,), (3, 4), (3,)], {}),
    "triplet_dims": ("triplet_margin_loss", [(3, 4), (3, 4), (4,)], {}),
    "triplet_margin": ("triplet_margin_loss", [(3, 4), (3, 4), (3, 4)], {"margin": 0.0}),
    "kl_reduction": ("kl_div", [(3, 4), (3, 4)], {"reduction": "bad"}),
    "poisson_reduction": ("poisson_nll_loss", [(3, 4), (3, 4)], {"reduction": "bad"}),
    "hinge_reduction": ("hinge_embedding_loss", [(3, 4), (3, 4)], {"reduction": "bad"}),
    "gaussian_var_size": ("gaussian_nll_loss", [(3, 4), (3, 4), (2,)], {}),
    "gaussian_reduction": ("gaussian_nll_loss", [(3, 4), (3, 4), (3, 4)], {"reduction": "bad"}),
    "multi_margin_p": ("multi_margin_loss", [(3, 4), "target"], {"p": 3}),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(torch_ref, case: str) -> None:
    name, shapes, kwargs = ERRORS[case]
    arrays = [np.array([0, 1, 2]) if s == "target" else np.abs(rng(1).standard_normal(s)) + 0.1 for s in shapes]
    mine, ref = _both(torch_ref, arrays)
    assert_same_error(lambda: getattr(F, name)(*mine, **kwargs),
                      lambda: getattr(torch_ref.nn.functional, name)(*ref, **kwargs))


@pytest.mark.parametrize("target,weight,shape", [
    (np.array([0, 1, 4]), None, (3, 4)),
    (np.array([0, 1]), None, (3, 4)),
    (np.array([[0, 1, 2]]), None, (3, 4)),
    (np.array([0, 1, 2]), np.ones(3), (3, 4)),
    (np.array([0, 1, 2]), np.ones((3, 1)), (3, 4)),
    (np.array([0, 1]), None, (2, 3, 4)),
    (np.array([0, -1, 2]), None, (3, 4)),
])
def test_multi_margin_errors_as_torch(torch_ref, target, weight, shape) -> None:
    x = rng(1).standard_normal(shape)
    w_ours = None if weight is None else ours(weight)
    w_theirs = None if weight is None else theirs(torch_ref, weight)
    assert_same_error(lambda: F.multi_margin_loss(ours(x), ours(target), weight=w_ours),
                      lambda: torch_ref.nn.functional.multi_margin_loss(theirs(torch_ref, x), theirs(torch_ref, target),
                                                                        weight=w_theirs))


def test_multi_margin_target_dtype_and_weight_grad_as_torch(torch_ref) -> None:
    x = rng(1).standard_normal((3, 4))
    for target in (np.array([0.0, 1.0, 2.0]), np.array([True, False, True])):
        assert_same_error(lambda: F.multi_margin_loss(ours(x), ours(target)),
                          lambda: torch_ref.nn.functional.multi_margin_loss(theirs(torch_ref, x), theirs(torch_ref, target)))
    assert_same_error(lambda: F.multi_margin_loss(ours(x), minitorch.tensor([0, 1, 2], dtype=minitorch.int32)),
                      lambda: torch_ref.nn.functional.multi_margin_loss(theirs(torch_ref, x),
                                                                        torch_ref.tensor([0, 1, 2], dtype=torch_ref.int32)))
    target, weight = np.array([0, 1, 2]), np.ones(4)
    assert_same_error(lambda: F.multi_margin_loss(ours(x), ours(target), weight=ours(weight, grad=True)),
                      lambda: torch_ref.nn.functional.multi_margin_loss(theirs(torch_ref, x), theirs(torch_ref, target),
                                                                        weight=theirs(torch_ref, weight, grad=True)))


def test_gaussian_negative_variance_as_torch(torch_ref) -> None:
    x, v = rng(1).standard_normal(3), -np.ones(3)
    assert_same_error(lambda: F.gaussian_nll_loss(ours(x), ours(x), ours(v)),
                      lambda: torch_ref.nn.functional.gaussian_nll_loss(theirs(torch_ref, x), theirs(torch_ref, x),
                                                                       theirs(torch_ref, v)))
    assert_same_error(lambda: F.gaussian_nll_loss(ours(x), ours(x), -1.0),
                      lambda: torch_ref.nn.functional.gaussian_nll_loss(theirs(torch_ref, x), theirs(torch_ref, x), -1.0))


def test_module_option_errors_as_torch(torch_ref) -> None:
    assert_same_error(lambda: minitorch.nn.TripletMarginLoss(margin=-1.0),
                      lambda: torch_ref.nn.TripletMarginLoss(margin=-1.0))
    assert_same_error(lambda: minitorch.nn.MultiMarginLoss(p=3), lambda: torch_ref.nn.MultiMarginLoss(p=3))
    assert_same_error(lambda: minitorch.nn.MultiMarginLoss(weight=ours(np.ones((2, 2)))),
                      lambda: torch_ref.nn.MultiMarginLoss(weight=theirs(torch_ref, np.ones((2, 2)))))


# ---- cross_entropy: label smoothing, class weights and ignore_index together ----

CE_COMBINED = [
    {"label_smoothing": 0.25, "weight": True, "ignore_index": 3, "reduction": r} for r in REDUCTIONS
] + [{"label_smoothing": 0.1, "weight": True, "ignore_index": -100, "reduction": "mean"},
     {"label_smoothing": 1.0, "weight": True, "ignore_index": 0, "reduction": "mean"}]


@pytest.mark.parametrize("kwargs", CE_COMBINED, ids=lambda k: f"{k['reduction']}-{k['label_smoothing']}-{k['ignore_index']}")
@pytest.mark.parametrize("spatial", [False, True])
def test_cross_entropy_smoothing_weight_ignore_index(torch_ref, kwargs: dict, spatial: bool) -> None:
    shape, target = ((4, 5), np.array([1, 3, 4, 3])) if not spatial else ((2, 5, 3), np.array([[1, 3, 0], [3, 4, 2]]))
    weight = np.array([0.5, 1.0, 2.0, 0.3, 1.5])
    options = dict(kwargs, weight=None)
    compare_with_torch(
        torch_ref,
        lambda x: F.cross_entropy(x, ours(target), **dict(options, weight=ours(weight))),
        lambda x: torch_ref.nn.functional.cross_entropy(x, theirs(torch_ref, target),
                                                        **dict(options, weight=theirs(torch_ref, weight))),
        [rng(1).standard_normal(shape) * 2], grad=[0], **EXACT,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("spatial", [False, True])
def test_cross_entropy_probability_targets_smoothing_weight(torch_ref, reduction: str, spatial: bool) -> None:
    shape = (4, 5) if not spatial else (2, 5, 3)
    target = np.exp(log_probs(shape if not spatial else (2, 3, 5), seed=4))
    if spatial:
        target = target.transpose(0, 2, 1).copy()
    weight = np.array([0.5, 1.0, 2.0, 0.3, 1.5])
    compare_with_torch(
        torch_ref,
        lambda x, t: F.cross_entropy(x, t, ours(weight), reduction=reduction, label_smoothing=0.3),
        lambda x, t: torch_ref.nn.functional.cross_entropy(x, t, theirs(torch_ref, weight), reduction=reduction,
                                                           label_smoothing=0.3),
        [rng(1).standard_normal(shape), target], grad=[0, 1], **EXACT,
    )
