"""Normalisation (5.6): layer norm, batch norm (training statistics, running buffers, eval) and
group norm against PyTorch, with gradient checks; and dropout's statistics."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_same_error, compare_with_torch, ours, values

import minitorch
import minitorch.nn.functional as F

task = pytest.mark.task("5.6")


@task
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_torch(backend: str, torch_ref, affine: bool) -> None:
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 3, 4, 5)) * 3 + 1, rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    if affine:
        compare_with_torch(
            torch_ref, lambda x, w, b: F.layer_norm(x, (4, 5), w, b),
            lambda x, w, b: torch_ref.nn.functional.layer_norm(x, (4, 5), w, b), [x, w, b], grad=[0, 1, 2],
        )
    else:
        compare_with_torch(
            torch_ref, lambda x: F.layer_norm(x, [5], eps=1e-3),
            lambda x: torch_ref.nn.functional.layer_norm(x, [5], eps=1e-3), [x], grad=[0],
        )


@task
def test_layer_norm_gradcheck(backend: str) -> None:
    rng = np.random.default_rng(1)
    x, w, b = (ours(rng.standard_normal(s), grad=True) for s in ((2, 4), (4,), (4,)))
    gradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), x, w, b)


@task
def test_layer_norm_is_stable_for_large_inputs(backend: str, torch_ref) -> None:
    x = np.array([[1e4, -1e4, 2e4, 0.0]])
    compare_with_torch(torch_ref, lambda t: F.layer_norm(t, (4,)), lambda t: torch_ref.nn.functional.layer_norm(t, (4,)), [x], grad=[0])


@task
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 4, 2)])
def test_batch_norm_training_matches_torch_with_running_stats(backend: str, torch_ref, shape) -> None:
    rng = np.random.default_rng(2)
    c = shape[1]
    x, w, b = rng.standard_normal(shape) * 2 + 0.5, rng.standard_normal(c), rng.standard_normal(c)
    mean, var = rng.standard_normal(c), rng.uniform(0.5, 2.0, c)
    my_mean, my_var = ours(mean), ours(var)
    ref_mean, ref_var = torch_ref.tensor(mean), torch_ref.tensor(var)
    compare_with_torch(
        torch_ref,
        lambda x, w, b: F.batch_norm(x, my_mean, my_var, w, b, training=True, momentum=0.3),
        lambda x, w, b: torch_ref.nn.functional.batch_norm(x, ref_mean, ref_var, w, b, training=True, momentum=0.3),
        [x, w, b], grad=[0, 1, 2],
    )
    np.testing.assert_allclose(values(my_mean), ref_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(values(my_var), ref_var.numpy(), rtol=1e-12)


@task
def test_batch_norm_eval_uses_running_stats(backend: str, torch_ref) -> None:
    rng = np.random.default_rng(3)
    x, mean, var = rng.standard_normal((3, 2, 4)), rng.standard_normal(2), rng.uniform(0.5, 2.0, 2)
    compare_with_torch(
        torch_ref,
        lambda x, m, v: F.batch_norm(x, m, v, training=False),
        lambda x, m, v: torch_ref.nn.functional.batch_norm(x, m, v, training=False),
        [x, mean, var], grad=[0],
    )


@task
def test_batch_norm_gradcheck(backend: str) -> None:
    rng = np.random.default_rng(4)
    x, w, b = ours(rng.standard_normal((3, 2, 2)), grad=True), ours(rng.standard_normal(2), grad=True), ours(rng.standard_normal(2), grad=True)
    gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), x, w, b)


@task
def test_group_norm_matches_torch(backend: str, torch_ref) -> None:
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 4, 3)), rng.standard_normal(4), rng.standard_normal(4)
    compare_with_torch(
        torch_ref, lambda x, w, b: F.group_norm(x, 2, w, b), lambda x, w, b: torch_ref.nn.functional.group_norm(x, 2, w, b),
        [x, w, b], grad=[0, 1, 2],
    )


NORM_ERRORS = [
    ("layer_norm_shape", lambda f, t: f.layer_norm(t.zeros(3, 8), (4,))),
    ("batch_norm_channels", lambda f, t: f.batch_norm(t.zeros(3, 8), t.zeros(4), t.ones(4))),
    ("batch_norm_one_value", lambda f, t: f.batch_norm(t.zeros(1, 8), None, None, training=True)),
    ("batch_norm_mean_requires_grad", lambda f, t: f.batch_norm(t.tensor([[1.0, 2.0], [3.0, 5.0]]),
                                                                t.zeros(2, requires_grad=True), t.ones(2), training=True)),
    ("batch_norm_var_requires_grad", lambda f, t: f.batch_norm(t.tensor([[1.0, 2.0], [3.0, 5.0]]), t.zeros(2),
                                                               t.ones(2, requires_grad=True))),
    ("linear_of_a_list", lambda f, t: f.linear([t.ones(2, 2)] * 2, t.ones(2, 2))),
]


@task
@pytest.mark.parametrize("name,call", NORM_ERRORS, ids=[n for n, _ in NORM_ERRORS])
def test_norm_errors_match_torch(torch_ref, name: str, call) -> None:
    assert_same_error(lambda: call(F, minitorch), lambda: call(torch_ref.nn.functional, torch_ref))


# ---- dropout ----


@task
@pytest.mark.parametrize("p", [0.2, 0.5])
def test_dropout_zeroes_a_fraction_p_and_keeps_the_mean(backend: str, p: float) -> None:
    n = 4000 if backend == "cpu" else 1000
    x = minitorch.ones(n, dtype=minitorch.float64)
    y = values(F.dropout(x, p, training=True))
    zero_fraction = float(np.mean(y == 0.0))
    assert abs(zero_fraction - p) < 4 * np.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(np.unique(y), [0.0, 1.0 / (1.0 - p)])


@task
def test_dropout_gradient_is_the_mask_scaled(backend: str) -> None:
    x = ours(np.arange(1.0, 201.0), grad=True)
    y = F.dropout(x, 0.3)
    y.sum().backward()
    kept = values(y) != 0.0
    np.testing.assert_allclose(values(x.grad), np.where(kept, 1.0 / 0.7, 0.0))


@task
def test_dropout_eval_p0_and_p1(backend: str) -> None:
    x = minitorch.randn(5)
    assert F.dropout(x, 0.5, training=False) is x
    assert values(F.dropout(x, 1.0)).tolist() == [0.0] * 5
    channels = values(F.dropout2d(minitorch.ones(2, 8, 3, 3), 0.5))
    assert all(len(np.unique(channels[n, c])) == 1 for n in range(2) for c in range(8))


@task
def test_dropout_bad_probability_matches_torch(torch_ref) -> None:
    assert_same_error(lambda: F.dropout(minitorch.zeros(2), 1.5), lambda: torch_ref.nn.functional.dropout(torch_ref.zeros(2), 1.5))
