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


# ---- the handwritten digits (scikit-learn's bundled copy; the dev extra installs it) ----

DIGITS_TOTAL = 1797


def _sklearn_digits() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return bunch.data, bunch.target


def test_digits_are_sklearns_images_scaled_to_the_unit_interval() -> None:
    from minitorch.datasets import digits

    data = digits()
    pixels, labels = _sklearn_digits()
    assert len(data) == DIGITS_TOTAL
    assert data.X.shape == (DIGITS_TOTAL, 64) and data.X.dtype == minitorch.float32
    assert data.y.shape == (DIGITS_TOTAL,) and data.y.dtype == minitorch.int64
    np.testing.assert_allclose(data.X.numpy(), pixels / 16.0, rtol=1e-6)
    np.testing.assert_array_equal(data.y.numpy(), labels)
    assert data.images.shape == (DIGITS_TOTAL, 1, 8, 8)
    np.testing.assert_array_equal(data.images.numpy()[5, 0], data.X.numpy()[5].reshape(8, 8))
    assert len(digits(10)) == 10


def test_digits_split_is_a_seeded_partition() -> None:
    from minitorch.datasets import digits_split

    train, test = digits_split(test_fraction=0.25, seed=SEED)
    assert len(test) == round(DIGITS_TOTAL * 0.25) and len(train) + len(test) == DIGITS_TOTAL
    pixels, _ = _sklearn_digits()
    # every image lands in exactly one part: compare the multisets of rows
    rows = np.concatenate([train.X.numpy(), test.X.numpy()])
    key = lambda a: np.lexsort(a.T[::-1])  # noqa: E731
    np.testing.assert_allclose(rows[key(rows)], (pixels / 16.0)[key(pixels / 16.0)], rtol=1e-6)
    assert set(np.unique(test.y.numpy())) == set(range(10))
    again_train, _ = digits_split(test_fraction=0.25, seed=SEED)
    other_train, _ = digits_split(test_fraction=0.25, seed=OTHER_SEED)
    np.testing.assert_array_equal(again_train.y.numpy(), train.y.numpy())
    assert not np.array_equal(other_train.y.numpy(), train.y.numpy())
    with pytest.raises(ValueError, match="test_fraction must lie strictly between 0 and 1, got 1.0"):
        digits_split(test_fraction=1.0)


def test_digits_without_scikit_learn_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from minitorch.datasets import digits

    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match=r"minitorch\[digits\]"):
        digits()
