"""The course's data sets, none of them downloaded.

The 2-D teaching sets are generated: each function draws ``n`` points with a NumPy
generator seeded by ``seed`` and labels them with one of the classic MiniTorch rules; the
same ``(n, seed)`` always gives the same :class:`Graph`. Points lie in the unit square,
labels are 0 or 1::

    from minitorch.datasets import DATASETS

    graph = DATASETS["split"](100, seed=0)
    graph.X.shape, graph.y.dtype        # (minitorch.Size([100, 2]), minitorch.int64)

The real image set is the handwritten digits that scikit-learn ships inside its package
(1797 images of 8x8 pixels, classes 0-9): install the extra with
``pip install "minitorch[digits]"``, then ``train, test = digits_split()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from .creation import from_numpy
from .tensor import Tensor

DEFAULT_SEED = 0
#: the middle of the unit square, where most decision boundaries sit
CENTRE = 0.5
#: ``split``: label 1 left of the first line and right of the second
SPLIT_LOW = 0.2
SPLIT_HIGH = 0.8
#: ``circle``: label 1 outside this squared radius around the centre
CIRCLE_RADIUS_SQ = 0.1
#: ``spiral``: angle range of each arm (radians) and the angle-to-radius scale, so the
#: arms reach radius ``SPIRAL_T_MAX / SPIRAL_SCALE = 0.5`` and stay inside the unit square
SPIRAL_T_MIN = 0.5
SPIRAL_T_MAX = 10.0
SPIRAL_SCALE = 20.0


@dataclass(frozen=True)
class Graph:
    """A labelled 2-D point set: ``X`` float32 ``(n, 2)``, ``y`` int64 ``(n,)`` of 0/1."""

    name: str
    X: Tensor  # noqa: N815 - the usual name of a design matrix
    y: Tensor

    def __len__(self) -> int:
        return self.X.shape[0]


def _points(n: int, seed: int) -> np.ndarray:
    """``n`` float32 points uniform in the unit square."""
    if n < 0:
        raise ValueError(f"number of points must be non-negative, got {n}")
    return np.random.default_rng(seed).random((n, 2)).astype(np.float32)


def _graph(name: str, points: np.ndarray, labels: np.ndarray) -> Graph:
    """Wrap NumPy points (float32) and boolean/0-1 labels as tensors."""
    return Graph(
        name,
        from_numpy(np.ascontiguousarray(points, dtype=np.float32)),
        from_numpy(np.ascontiguousarray(labels, dtype=np.int64)),
    )


def _labelled(name: str, n: int, seed: int, rule: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Graph:
    """Uniform points labelled by ``rule(x0, x1)``, evaluated in float64 on the float32 points."""
    points = _points(n, seed)
    wide = points.astype(np.float64)
    return _graph(name, points, rule(wide[:, 0], wide[:, 1]))


def simple(n: int, seed: int = DEFAULT_SEED) -> Graph:
    """Label 1 left of the vertical line ``x0 = 0.5``."""
    # BEGIN SOLUTION 9.1
    return _labelled("simple", n, seed, lambda x0, x1: x0 < CENTRE)
    # END SOLUTION


def diag(n: int, seed: int = DEFAULT_SEED) -> Graph:
    """Label 1 below the diagonal ``x0 + x1 = 0.5``."""
    # BEGIN SOLUTION 9.1
    return _labelled("diag", n, seed, lambda x0, x1: x0 + x1 < CENTRE)
    # END SOLUTION


def split(n: int, seed: int = DEFAULT_SEED) -> Graph:
    """Label 1 in the two outer bands ``x0 < 0.2`` and ``x0 > 0.8``."""
    # BEGIN SOLUTION 9.1
    return _labelled("split", n, seed, lambda x0, x1: (x0 < SPLIT_LOW) | (x0 > SPLIT_HIGH))
    # END SOLUTION


def xor(n: int, seed: int = DEFAULT_SEED) -> Graph:
    """Label 1 in the top-left and bottom-right quadrants."""
    # BEGIN SOLUTION 9.1
    return _labelled("xor", n, seed, lambda x0, x1: (x0 < CENTRE) ^ (x1 > CENTRE))
    # END SOLUTION


def circle(n: int, seed: int = DEFAULT_SEED) -> Graph:
    """Label 1 outside the circle of squared radius 0.1 around the centre."""
    # BEGIN SOLUTION 9.1
    return _labelled(
        "circle", n, seed, lambda x0, x1: (x0 - CENTRE) ** 2 + (x1 - CENTRE) ** 2 > CIRCLE_RADIUS_SQ
    )
    # END SOLUTION


def spiral_arm(t: np.ndarray, label: int) -> np.ndarray:
    """Points at angles ``t`` on arm ``label`` (0 or 1) of the spiral, centred on ``(0.5, 0.5)``.

    Arm 0 is ``(t cos t, t sin t) / 20``; arm 1 is MiniTorch's ``(y(-t), x(-t))``, the
    same curve turned a quarter, so the two interleave.
    """
    # BEGIN SOLUTION 9.1
    x = t * np.cos(t) / SPIRAL_SCALE
    y = t * np.sin(t) / SPIRAL_SCALE
    arm = np.stack([x, y], axis=1) if label == 0 else np.stack([y, -x], axis=1)
    return arm + CENTRE
    # END SOLUTION


def spiral(n: int, seed: int = DEFAULT_SEED) -> Graph:
    """Two interleaved spirals: the first ``n - n // 2`` points on arm 0, the rest on arm 1."""
    if n < 0:
        raise ValueError(f"number of points must be non-negative, got {n}")
    rng = np.random.default_rng(seed)
    counts = (n - n // 2, n // 2)
    arms = [spiral_arm(rng.uniform(SPIRAL_T_MIN, SPIRAL_T_MAX, size=count), label) for label, count in enumerate(counts)]
    labels = np.repeat(np.arange(len(counts)), counts)
    return _graph("spiral", np.concatenate(arms).reshape(n, 2), labels)


#: name -> generator, each called as ``DATASETS[name](n, seed=...)``
DATASETS: dict[str, Callable[..., Graph]] = {
    "simple": simple,
    "diag": diag,
    "split": split,
    "xor": xor,
    "circle": circle,
    "spiral": spiral,
}

#: the digits: classes, pixels per side, and the largest pixel value (an ink count from 0 to 16)
DIGITS_CLASSES = 10
DIGITS_SIDE = 8
DIGITS_FEATURES = DIGITS_SIDE * DIGITS_SIDE
DIGITS_MAX_PIXEL = 16.0
DIGITS_TEST_FRACTION = 0.2
DIGITS_INSTALL_HINT = (
    "the digits data set is read from scikit-learn, which ships it; install it with "
    "pip install 'minitorch[digits]' (or pip install scikit-learn)"
)


@dataclass(frozen=True)
class Digits:
    """Handwritten digits: ``X`` float32 ``(n, 64)`` pixels scaled to [0, 1], ``y`` int64 ``(n,)`` in 0-9."""

    name: str
    X: Tensor  # noqa: N815
    y: Tensor

    def __len__(self) -> int:
        return self.X.shape[0]

    @property
    def images(self) -> Tensor:
        """The same pixels as ``(n, 1, 8, 8)`` images (channel first, for convolutions)."""
        return self.X.view(len(self), 1, DIGITS_SIDE, DIGITS_SIDE)


def _digit_arrays() -> tuple[np.ndarray, np.ndarray]:
    """All 1797 images as float32 rows in [0, 1] and their int64 labels, in scikit-learn's order."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as error:
        raise ImportError(DIGITS_INSTALL_HINT) from error
    bunch = load_digits()
    pixels = np.asarray(bunch.data, dtype=np.float32) / np.float32(DIGITS_MAX_PIXEL)
    return pixels, np.asarray(bunch.target, dtype=np.int64)


def digits(n: Optional[int] = None) -> Digits:
    """The digits in scikit-learn's order (the first ``n`` of them if ``n`` is given)."""
    pixels, labels = _digit_arrays()
    if n is not None:
        if n < 0:
            raise ValueError(f"number of images must be non-negative, got {n}")
        pixels, labels = pixels[:n], labels[:n]
    return Digits("digits", from_numpy(np.ascontiguousarray(pixels)), from_numpy(np.ascontiguousarray(labels)))


def digits_split(test_fraction: float = DIGITS_TEST_FRACTION, seed: int = DEFAULT_SEED) -> tuple[Digits, Digits]:
    """A shuffled train/test split of the digits; the same ``seed`` gives the same split."""
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must lie strictly between 0 and 1, got {test_fraction}")
    pixels, labels = _digit_arrays()
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(round(len(labels) * test_fraction))
    parts = {"train": order[n_test:], "test": order[:n_test]}
    return tuple(  # type: ignore[return-value]
        Digits(f"digits-{name}", from_numpy(np.ascontiguousarray(pixels[rows])), from_numpy(labels[rows].copy()))
        for name, rows in parts.items()
    )


__all__ = [
    "DATASETS", "DIGITS_CLASSES", "DIGITS_FEATURES", "Digits", "Graph", "circle", "diag", "digits", "digits_split",
    "simple", "spiral", "spiral_arm", "split", "xor",
]
