"""``nn.utils.parametrizations.orthogonal`` against torch's on the same weights: the orthogonal
matrix it makes, its ``state_dict`` keys, a few SGD steps, assignment and its errors."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch

pytestmark = pytest.mark.task("11.2")

SETUPS = [
    ((4, 4), None, True),
    ((5, 3), None, True),
    ((3, 5), None, True),
    ((4, 4), "cayley", True),
    ((5, 3), "cayley", True),
    ((4, 4), "householder", True),
    ((5, 3), "householder", False),
    ((3, 5), "householder", False),
    ((2, 4, 4), None, True),
]


def orthogonal_linear(lib: ModuleType, weight: np.ndarray, orthogonal_map, use_trivialization: bool):
    layer = lib.nn.Linear(weight.shape[-1], weight.shape[-2], bias=False, dtype=lib.float64)
    layer.weight = lib.nn.Parameter(lib.tensor(weight))
    lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    return layer


def is_orthogonal(matrix: np.ndarray) -> bool:
    tall = matrix if matrix.shape[-2] >= matrix.shape[-1] else np.swapaxes(matrix, -1, -2)
    gram = np.swapaxes(tall, -1, -2) @ tall
    return np.allclose(gram, np.eye(tall.shape[-1]), atol=1e-12)


@pytest.mark.parametrize("shape, orthogonal_map, use_trivialization", SETUPS)
def test_orthogonal_weight_and_keys_equal_torch(torch_ref: ModuleType, shape, orthogonal_map, use_trivialization) -> None:
    weight = np.random.default_rng(sum(shape)).normal(size=shape)
    ours = orthogonal_linear(minitorch, weight, orthogonal_map, use_trivialization)
    theirs = orthogonal_linear(torch_ref, weight, orthogonal_map, use_trivialization)
    assert is_orthogonal(ours.weight.detach().numpy())
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), atol=1e-12)
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_sgd_steps_equal_torch_and_stay_orthogonal(torch_ref: ModuleType, orthogonal_map: str) -> None:
    """Square weights: the random completion of a tall base (drawn from each library's own
    generator) plays no part, so the whole trajectory must agree."""
    rng = np.random.default_rng(3)
    weight, inputs, targets = rng.normal(size=(4, 4)), rng.normal(size=(8, 4)), rng.normal(size=(8, 4))
    trajectories = []
    for lib in (minitorch, torch_ref):
        layer = orthogonal_linear(lib, weight, orthogonal_map, orthogonal_map != "householder")
        optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
        for _ in range(5):
            optimizer.zero_grad()
            ((layer(lib.tensor(inputs)) - lib.tensor(targets)) ** 2).mean().backward()
            optimizer.step()
        trajectories.append(layer.weight.detach().numpy())
    assert is_orthogonal(trajectories[0])
    np.testing.assert_allclose(trajectories[0], trajectories[1], atol=1e-10)


def test_assigning_an_orthogonal_matrix_reproduces_it(torch_ref: ModuleType) -> None:
    q, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(5, 3)))
    layer = orthogonal_linear(minitorch, np.zeros((5, 3)) + np.eye(5, 3), None, True)
    layer.weight = minitorch.tensor(q)
    np.testing.assert_allclose(layer.weight.detach().numpy(), q, atol=1e-12)


def test_errors_equal_torch(torch_ref: ModuleType) -> None:
    for call in (
        lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="polar"),
        lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), name="scale"),
        lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.LayerNorm(3)),
    ):
        with pytest.raises(ValueError) as theirs:
            call(torch_ref)
        with pytest.raises(ValueError) as ours:
            call(minitorch)
        assert str(ours.value).replace("minitorch", "torch") == str(theirs.value)
    for lib in (minitorch, torch_ref):
        layer = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map="matrix_exp", use_trivialization=False)
        with pytest.raises(NotImplementedError, match="use_trivialization=False"):
            layer.weight = lib.eye(3)
