r"""Milestone 1: Rosenblatt's perceptron (1957) on a linearly separable 2-D set.

The perceptron predicts :math:`\hat y = \operatorname{sign}(w \cdot x + b)` with labels
:math:`y \in \{-1, +1\}` and learns by the perceptron rule: for each misclassified point,

.. math::
    w \leftarrow w + y\,x, \qquad b \leftarrow b + y .

On a set that a line separates with a margin the rule stops making mistakes after finitely
many updates (Novikoff, 1962), so training runs until an epoch has none. Only tensors are
needed (steps 0-2): no autograd, no optimizer.
"""

from __future__ import annotations

import numpy as np

import minitorch

from .common import Options, Outcome, Stopwatch, progress, pyplot, save_figure

POINTS = 100
#: the hidden separating line :math:`w^* \cdot x + b^* = 0` and the empty band kept around it
TRUE_WEIGHT = (1.0, -2.0)
TRUE_BIAS = 0.3
MARGIN = 0.1
MAX_EPOCHS = 100
PICTURE = "milestone1-perceptron.png"
GRID_STEPS = 200


def separable_points(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` points uniform in :math:`[-1, 1]^2`, none within ``MARGIN`` of the hidden line, and their
    :math:`\\pm 1` labels (float64)."""
    rng = np.random.default_rng(seed)
    normal = np.array(TRUE_WEIGHT)
    kept: list[np.ndarray] = []
    while sum(len(part) for part in kept) < count:
        candidates = rng.uniform(-1.0, 1.0, size=(count, 2))
        distance = (candidates @ normal + TRUE_BIAS) / np.linalg.norm(normal)
        kept.append(candidates[np.abs(distance) >= MARGIN])
    points = np.concatenate(kept)[:count]
    labels = np.where(points @ normal + TRUE_BIAS > 0, 1.0, -1.0)
    return points, labels


def train_perceptron(points: np.ndarray, labels: np.ndarray, options: Options) -> tuple[minitorch.Tensor, float, list[int]]:
    """The perceptron rule on minitorch tensors, epoch after epoch until one makes no mistake.

    Returns the weight (2,), the bias and the mistakes per epoch."""
    rows = [minitorch.tensor(point.tolist(), dtype=minitorch.float64) for point in points]
    weight = minitorch.zeros(2, dtype=minitorch.float64)
    bias = 0.0
    mistakes_per_epoch: list[int] = []
    order = np.random.default_rng(options.seed)
    bar = progress(range(MAX_EPOCHS), options, "perceptron rule")
    for _ in bar:
        mistakes = 0
        for i in order.permutation(len(rows)):
            label = float(labels[i])
            if label * ((weight * rows[i]).sum().item() + bias) <= 0:
                weight = weight + rows[i] * label
                bias += label
                mistakes += 1
        mistakes_per_epoch.append(mistakes)
        bar.set_postfix(mistakes=mistakes, refresh=False)
        if mistakes == 0:
            break
    return weight, bias, mistakes_per_epoch


def _plot(points: np.ndarray, labels: np.ndarray, weight: np.ndarray, bias: float, mistakes: list[int],
          options: Options) -> object:
    plt = pyplot()
    figure, (boundary_ax, mistakes_ax) = plt.subplots(1, 2, figsize=(9, 4))
    xx, yy = np.meshgrid(np.linspace(-1, 1, GRID_STEPS), np.linspace(-1, 1, GRID_STEPS))
    side = np.sign(weight[0] * xx + weight[1] * yy + bias)
    boundary_ax.contourf(xx, yy, side, levels=[-2, 0, 2], colors=["#f4b6b6", "#b6cdf4"], alpha=0.6)
    colors = np.where(labels > 0, "tab:blue", "tab:red")
    boundary_ax.scatter(points[:, 0], points[:, 1], c=colors, edgecolors="k", linewidths=0.5, s=22)
    boundary_ax.set(title="perceptron: learned decision boundary", xlabel="x0", ylabel="x1", aspect="equal")
    mistakes_ax.plot(range(1, len(mistakes) + 1), mistakes, marker="o")
    mistakes_ax.set(title="mistakes per epoch (0: converged)", xlabel="epoch", ylabel="updates",
                    xticks=range(1, len(mistakes) + 1))
    mistakes_ax.grid(True, alpha=0.3)
    return save_figure(figure, options.out_dir, PICTURE)


def run(options: Options) -> Outcome:
    """Train the perceptron, print and plot how it went."""
    minitorch.manual_seed(options.seed)
    clock = Stopwatch()
    points, labels = separable_points(POINTS, options.seed)
    weight, bias, mistakes = train_perceptron(points, labels, options)
    learned = weight.numpy()
    accuracy = float(np.mean(np.sign(points @ learned + bias) == labels))
    print(f"converged after {len(mistakes)} epochs and {sum(mistakes)} updates; train accuracy {accuracy:.0%}; "
          f"w = {np.round(learned, 3).tolist()}, b = {bias:g}")
    figures = {"accuracy": accuracy, "epochs": float(len(mistakes)), "updates": float(sum(mistakes))}
    arrays = {"points": points, "labels": labels, "weight": learned, "bias": np.array([bias])}
    picture = _plot(points, labels, learned, bias, mistakes, options)
    return Outcome(figures=figures, picture=picture, seconds=clock.elapsed, arrays=arrays)
