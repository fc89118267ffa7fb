"""Losses (5.8) against PyTorch: every reduction, class weights, ignore_index, label smoothing,
probability targets, K-dimensional inputs; gradient checks; stability; error messages."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn.functional as F

task = pytest.mark.task("5.8")
REDUCTIONS = ["mean", "sum", "none"]


def logits(shape=(4, 5), seed=0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape) * 2


@task
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_losses_match_torch(backend: str, torch_ref, name: str, reduction: str) -> None:
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    compare_with_torch(
        torch_ref, lambda a, b: getattr(F, name)(a, b, reduction=reduction),
        lambda a, b: getattr(torch_ref.nn.functional, name)(a, b, reduction=reduction), [x, y], grad=[0, 1],
    )


CE_CASES = {
    "plain": {},
    "sum": {"reduction": "sum"},
    "none": {"reduction": "none"},
    "weight": {"weight": True},
    "ignore": {"ignore_index": 2},
    "weight_ignore_none": {"weight": True, "ignore_index": 1, "reduction": "none"},
    "smoothing": {"label_smoothing": 0.2},
    "smoothing_weight_ignore": {"label_smoothing": 0.1, "weight": True, "ignore_index": 2},
    "smoothing_ignore_sum": {"label_smoothing": 0.3, "ignore_index": 0, "reduction": "sum"},
    "smoothing_none": {"label_smoothing": 0.3, "weight": True, "reduction": "none"},
}


def _ce_args(torch_mod, weight_array, case):
    kwargs = dict(case)
    if kwargs.pop("weight", False):
        kwargs["weight"] = weight_array
    return kwargs


@task
@pytest.mark.parametrize("case", sorted(CE_CASES))
def test_cross_entropy_class_indices_matches_torch(backend: str, torch_ref, case: str) -> None:
    x, target = logits(), np.array([1, 2, 4, 0])
    weight = np.array([0.5, 1.0, 2.0, 0.3, 1.5])
    kwargs = CE_CASES[case]
    uses_weight = kwargs.get("weight", False)
    plain = {k: v for k, v in kwargs.items() if k != "weight"}
    compare_with_torch(
        torch_ref,
        lambda x, t, w: F.cross_entropy(x, t, weight=w if uses_weight else None, **plain),
        lambda x, t, w: torch_ref.nn.functional.cross_entropy(x, t, weight=w if uses_weight else None, **plain),
        [x, target, weight], grad=[0],
    )


@task
@pytest.mark.parametrize("case", ["plain", "smoothing", "weight", "none"])
def test_cross_entropy_probabilities_matches_torch(backend: str, torch_ref, case: str) -> None:
    x = logits()
    probs = np.random.default_rng(2).dirichlet(np.ones(5), size=4)
    weight = np.array([0.5, 1.0, 2.0, 0.3, 1.5])
    kwargs = {"plain": {}, "smoothing": {"label_smoothing": 0.25}, "none": {"reduction": "none"}}.get(case, {})
    uses_weight = case == "weight"
    compare_with_torch(
        torch_ref,
        lambda x, p, w: F.cross_entropy(x, p, weight=w if uses_weight else None, **kwargs),
        lambda x, p, w: torch_ref.nn.functional.cross_entropy(x, p, weight=w if uses_weight else None, **kwargs),
        [x, probs, weight], grad=[0, 1],
    )


@task
def test_cross_entropy_k_dimensional_and_single_sample(backend: str, torch_ref) -> None:
    x = logits((2, 3, 2, 2), seed=3)
    target = np.array([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])
    compare_with_torch(
        torch_ref, lambda x, t: F.cross_entropy(x, t, ignore_index=1),
        lambda x, t: torch_ref.nn.functional.cross_entropy(x, t, ignore_index=1), [x, target], grad=[0],
    )
    compare_with_torch(
        torch_ref, lambda x, t: F.cross_entropy(x, t), lambda x, t: torch_ref.nn.functional.cross_entropy(x, t),
        [logits((5,), seed=4), np.array(3)], grad=[0],
    )


@task
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_torch(backend: str, torch_ref, reduction: str) -> None:
    x = logits(seed=5)
    compare_with_torch(
        torch_ref,
        lambda x, t, w: F.nll_loss(F.log_softmax(x, 1), t, w, ignore_index=0, reduction=reduction),
        lambda x, t, w: torch_ref.nn.functional.nll_loss(torch_ref.log_softmax(x, 1), t, w, ignore_index=0, reduction=reduction),
        [x, np.array([1, 0, 3, 3]), np.array([1.0, 2.0, 0.5, 1.5, 1.0])], grad=[0],
    )


@task
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_batch_of_class_indices(backend: str, torch_ref, reduction: str, ignore_index: int) -> None:
    """The common case (a batch of logits, int64 targets, no weights), which the reference computes as one node."""
    x, target = logits((5, 4), seed=8), np.array([3, 2, 0, -100 if ignore_index == -100 else 2, 1])
    compare_with_torch(
        torch_ref, lambda a, t: F.cross_entropy(a, t, ignore_index=ignore_index, reduction=reduction),
        lambda a, t: torch_ref.nn.functional.cross_entropy(a, t, ignore_index=ignore_index, reduction=reduction),
        [x, target], grad=[0],
    )
    t = minitorch.tensor(target)
    gradcheck(lambda a: F.cross_entropy(a, t, ignore_index=ignore_index, reduction=reduction), ours(x, grad=True))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_second_derivatives(backend: str, reduction: str) -> None:
    """The gradient taken with create_graph is itself differentiable (checked by central differences)."""
    t = minitorch.tensor([3, 2, 0, -100, 1])

    def first_derivative(a: minitorch.Tensor) -> minitorch.Tensor:
        with minitorch.enable_grad():
            leaf = a if a.requires_grad else a.detach().requires_grad_()
            loss = F.cross_entropy(leaf, t, reduction=reduction).sum()
            return minitorch.autograd.grad(loss, [leaf], create_graph=True)[0]

    gradcheck(first_derivative, ours(logits((5, 4), seed=8), grad=True))


@task
def test_cross_entropy_rejects_out_of_range_targets(backend: str, torch_ref) -> None:
    x = logits((3, 4))
    for target in ([0, 4, 1], [0, -1, 1]):
        assert_same_error(
            lambda: F.cross_entropy(ours(x), minitorch.tensor(target)),
            lambda: torch_ref.nn.functional.cross_entropy(torch_ref.tensor(x), torch_ref.tensor(target)),
        )


@task
def test_cross_entropy_gradcheck(backend: str) -> None:
    x = ours(logits((3, 4), seed=6), grad=True)
    target = minitorch.tensor([3, 0, 1])
    weight = minitorch.tensor([1.0, 0.5, 2.0, 1.0], dtype=minitorch.float64)
    gradcheck(lambda t: F.cross_entropy(t, target, weight=weight, label_smoothing=0.1), x)
    probs = ours(np.random.default_rng(7).dirichlet(np.ones(4), size=3), grad=True)
    gradcheck(lambda t, p: F.cross_entropy(t, p), x, probs)


@task
def test_cross_entropy_is_finite_at_extreme_logits(backend: str, torch_ref) -> None:
    x = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, 1e4]])
    compare_with_torch(
        torch_ref, lambda x, t: F.cross_entropy(x, t), lambda x, t: torch_ref.nn.functional.cross_entropy(x, t),
        [x, np.array([1, 2])], grad=[0],
    )
    assert np.isfinite(values(F.cross_entropy(ours(x), minitorch.tensor([1, 2]))))


@task
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_matches_torch(backend: str, torch_ref, reduction: str) -> None:
    rng = np.random.default_rng(8)
    p, y, w = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4)), rng.uniform(0.5, 2, (3, 4))
    compare_with_torch(
        torch_ref, lambda p, y, w: F.binary_cross_entropy(p, y, w, reduction=reduction),
        lambda p, y, w: torch_ref.nn.functional.binary_cross_entropy(p, y, w, reduction=reduction), [p, y, w], grad=[0, 1],
    )


@task
def test_binary_cross_entropy_clamps_logs(backend: str, torch_ref) -> None:
    p, y = np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 1.0])
    compare_with_torch(
        torch_ref, lambda p, y: F.binary_cross_entropy(p, y, reduction="none"),
        lambda p, y: torch_ref.nn.functional.binary_cross_entropy(p, y, reduction="none"), [p, y],
    )


@task
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_matches_torch(backend: str, torch_ref, reduction: str) -> None:
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal((3, 4)) * 3, rng.uniform(0, 1, (3, 4))
    w, pw = rng.uniform(0.5, 2, (3, 4)), rng.uniform(0.5, 3, 4)
    compare_with_torch(
        torch_ref, lambda x, y, w, pw: F.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw),
        lambda x, y, w, pw: torch_ref.nn.functional.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw),
        [x, y, w, pw], grad=[0, 1],
    )


@task
def test_bce_with_logits_stable_and_gradcheck(backend: str, torch_ref) -> None:
    x, y = np.array([1e4, -1e4, 50.0, -50.0]), np.array([0.0, 1.0, 1.0, 0.3])
    compare_with_torch(
        torch_ref, lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="none"),
        lambda x, y: torch_ref.nn.functional.binary_cross_entropy_with_logits(x, y, reduction="none"), [x, y], grad=[0],
    )
    a = ours(np.array([0.5, -1.5, 2.0]), grad=True)
    # targets strictly inside (0, 1): the nudges of central differences must stay valid
    # probabilities, which binary_cross_entropy checks (as PyTorch)
    t = ours(np.array([0.9, 0.05, 0.4]), grad=True)
    gradcheck(lambda a, t: F.binary_cross_entropy_with_logits(a, t), a, t)
    gradcheck(lambda a, t: F.binary_cross_entropy(a.sigmoid(), t), a, t)


LOSS_ERRORS = [
    ("target_out_of_range", lambda f, t: f.cross_entropy(t.zeros(3, 5), t.tensor([1, 2, 7]))),
    ("batch_mismatch", lambda f, t: f.cross_entropy(t.zeros(3, 5), t.tensor([1, 2]))),
    ("negative_target", lambda f, t: f.nll_loss(t.zeros(3, 5), t.tensor([1, 2, -3]))),
    ("bce_size", lambda f, t: f.binary_cross_entropy(t.ones(3) * 0.5, t.ones(4) * 0.5)),
    ("probabilities_ignore", lambda f, t: f.cross_entropy(t.zeros(3, 5), t.ones(3, 5) / 5, ignore_index=1)),
    ("bad_reduction", lambda f, t: f.mse_loss(t.zeros(2), t.zeros(2), reduction="avg")),
]


@task
@pytest.mark.parametrize("name,call", LOSS_ERRORS, ids=[n for n, _ in LOSS_ERRORS])
def test_loss_errors_match_torch(torch_ref, name: str, call) -> None:
    assert_same_error(lambda: call(F, minitorch), lambda: call(torch_ref.nn.functional, torch_ref))


@pytest.mark.parametrize("target", ["int32", "float_wrong_shape", "bool", "float_2d_nll"])
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
def test_class_index_target_dtypes_are_refused_as_torch(torch_ref, name: str, target: str) -> None:
    """Only int64 and uint8 class indices, as PyTorch (was: int32 accepted, a float target of
    the wrong shape read as probabilities with a size warning)."""
    def call(lib):
        x = lib.tensor([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]).log()
        targets = {"int32": lib.tensor([0, 2], dtype=lib.int32), "float_wrong_shape": lib.tensor([0.0, 2.0]),
                   "bool": lib.tensor([True, False]), "float_2d_nll": lib.tensor([[0.0, 1, 0], [1, 0, 0]])}
        return getattr(lib.nn.functional, name)(x, targets[target])

    if name == "cross_entropy" and target == "float_2d_nll":  # probabilities: a loss, not an error
        np.testing.assert_allclose(call(minitorch).item(), call(torch_ref).item(), rtol=1e-6)
        return
    assert_same_error(lambda: call(minitorch), lambda: call(torch_ref))


def test_byte_class_indices_work_as_torch(torch_ref) -> None:
    def call(lib):
        return lib.nn.functional.nll_loss(lib.tensor([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]).log(), lib.tensor([0, 2], dtype=lib.uint8))

    np.testing.assert_allclose(call(minitorch).item(), call(torch_ref).item(), rtol=1e-6)
