"""The generated 2-D teaching sets: shapes, dtypes, label rules and seed reproducibility."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch.datasets import DATASETS, Graph, spiral_arm

N_POINTS = 200
SEED = 3
OTHER_SEED = 4
#: how far (in the unit square) a spiral point may sit from its arm: float32 rounding only
SPIRAL_TOLERANCE = 1e-5
#: on both arms of the spiral the distance from the centre is the angle over this
SPIRAL_SCALE = 20.0

Rule = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: the classic MiniTorch labelling rules, recomputed with NumPy
RULES: dict[str, Rule] = {
    "simple": lambda x0, x1: x0 < 0.5,
    "diag": lambda x0, x1: x0 + x1 < 0.5,
    "split": lambda x0, x1: (x0 < 0.2) | (x0 > 0.8),
    "xor": lambda x0, x1: (x0 < 0.5) ^ (x1 > 0.5),
    "circle": lambda x0, x1: (x0 - 0.5) ** 2 + (x1 - 0.5) ** 2 > 0.1,
}


def _arrays(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    return graph.X.numpy(), graph.y.numpy()


@pytest.mark.task("9.1")
def test_registry_names() -> None:
    assert set(DATASETS) == {"simple", "diag", "split", "xor", "circle", "spiral"}


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_shapes_and_dtypes(name: str) -> None:
    graph = DATASETS[name](N_POINTS, seed=SEED)
    assert graph.name == name
    assert len(graph) == N_POINTS
    assert isinstance(graph.X, minitorch.Tensor) and isinstance(graph.y, minitorch.Tensor)
    assert graph.X.shape == (N_POINTS, 2) and graph.X.dtype == minitorch.float32
    assert graph.y.shape == (N_POINTS,) and graph.y.dtype == minitorch.int64
    X, y = _arrays(graph)
    assert set(np.unique(y)) <= {0, 1}
    assert np.all((X >= 0.0) & (X <= 1.0))


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", sorted(RULES))
def test_label_rule(name: str) -> None:
    X, y = _arrays(DATASETS[name](N_POINTS, seed=SEED))
    wide = X.astype(np.float64)
    expected = RULES[name](wide[:, 0], wide[:, 1]).astype(np.int64)
    np.testing.assert_array_equal(y, expected)
    assert 0 < y.sum() < N_POINTS, "both classes should appear in a few hundred uniform points"


@pytest.mark.task("9.1")
def test_spiral_points_lie_on_their_arm() -> None:
    X, y = _arrays(DATASETS["spiral"](N_POINTS, seed=SEED))
    assert y.sum() == N_POINTS // 2 and y[: N_POINTS - N_POINTS // 2].sum() == 0
    # on either arm the distance from the centre is t / 20: recover t, redraw the point
    t = SPIRAL_SCALE * np.hypot(X[:, 0] - 0.5, X[:, 1] - 0.5).astype(np.float64)
    for label in (0, 1):
        mine = y == label
        np.testing.assert_allclose(spiral_arm(t[mine], label), X[mine], atol=SPIRAL_TOLERANCE)
        other = np.abs(spiral_arm(t[mine], 1 - label) - X[mine]).max(axis=1)
        assert np.all(other > SPIRAL_TOLERANCE), "a point should not lie on the other arm"


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_same_seed_same_data(name: str) -> None:
    first_X, first_y = _arrays(DATASETS[name](N_POINTS, seed=SEED))
    again_X, again_y = _arrays(DATASETS[name](N_POINTS, seed=SEED))
    other_X, _ = _arrays(DATASETS[name](N_POINTS, seed=OTHER_SEED))
    np.testing.assert_array_equal(first_X, again_X)
    np.testing.assert_array_equal(first_y, again_y)
    assert not np.array_equal(first_X, other_X)


@pytest.mark.task("9.1")
def test_does_not_touch_the_global_generator() -> None:
    minitorch.manual_seed(0)
    expected = minitorch.rand(3).numpy().copy()
    minitorch.manual_seed(0)
    DATASETS["xor"](N_POINTS, seed=SEED)
    np.testing.assert_array_equal(minitorch.rand(3).numpy(), expected)


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_odd_and_empty_sizes(name: str) -> None:
    for n in (0, 1, 7):
        graph = DATASETS[name](n, seed=SEED)
        assert graph.X.shape == (n, 2) and graph.y.shape == (n,)
