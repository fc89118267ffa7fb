r"""Milestone 2: XOR and backpropagation (Rumelhart, Hinton and Williams, 1986).

No line separates XOR's four points, so no perceptron learns it (Minsky and Papert, 1969).
A hidden layer does: a 2-4-1 network

.. math::
    h = \tanh(x W_1 + b_1), \qquad p = \sigma(h W_2 + b_2),

trained on the binary cross-entropy by gradient descent, the gradients computed by
backpropagation -- your step 2 autograd engine -- and the update written out by hand,
:math:`\theta \leftarrow \theta - \eta\, \partial L / \partial \theta` (no optimizer needed).
"""

from __future__ import annotations

import numpy as np

import minitorch

from .common import Options, Outcome, Stopwatch, progress, pyplot, save_figure

INPUTS = ((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0))
TARGETS = (0.0, 1.0, 1.0, 0.0)
HIDDEN = 4
LEARNING_RATE = 0.5
STEPS = 1500
QUICK_STEPS = 400
#: the initial weights are uniform in [-INIT_RANGE, INIT_RANGE]
INIT_RANGE = 1.0
#: keeps log() finite when a prediction reaches 0 or 1
EPSILON = 1e-7
PICTURE = "milestone2-xor.png"
GRID_STEPS = 100
GRID_MARGIN = 0.5


def init_weights(seed: int) -> dict[str, minitorch.Tensor]:
    """W1 (2, 4), b1 (4,), W2 (4, 1), b2 (1,), uniform in [-1, 1], requiring gradients."""
    generator = minitorch.Generator().manual_seed(seed)
    shapes = {"W1": (2, HIDDEN), "b1": (HIDDEN,), "W2": (HIDDEN, 1), "b2": (1,)}
    return {name: (minitorch.rand(*shape, generator=generator) * (2 * INIT_RANGE) - INIT_RANGE).requires_grad_()
            for name, shape in shapes.items()}


def forward(weights: dict[str, minitorch.Tensor], inputs: minitorch.Tensor) -> minitorch.Tensor:
    """The probability of label 1 for each row of ``inputs``, shape (n,)."""
    hidden = (inputs @ weights["W1"] + weights["b1"]).tanh()
    return (hidden @ weights["W2"] + weights["b2"]).sigmoid().view(inputs.shape[0])


def bce(probability: minitorch.Tensor, target: minitorch.Tensor) -> minitorch.Tensor:
    r""":math:`-\frac1n \sum t \log p + (1 - t) \log(1 - p)`."""
    return -(target * (probability + EPSILON).log() + (1.0 - target) * (1.0 - probability + EPSILON).log()).mean()


def train(weights: dict[str, minitorch.Tensor], steps: int, options: Options) -> list[float]:
    """Full-batch gradient descent on the four points; the loss after each step."""
    inputs, targets = minitorch.tensor(INPUTS), minitorch.tensor(TARGETS)
    losses: list[float] = []
    bar = progress(range(steps), options, "backpropagation on XOR")
    for _ in bar:
        loss = bce(forward(weights, inputs), targets)
        loss.backward()
        with minitorch.no_grad():
            for weight in weights.values():
                weight.sub_(weight.grad * LEARNING_RATE)
                weight.grad = None
        losses.append(loss.item())
        bar.set_postfix(loss=f"{losses[-1]:.4f}", refresh=False)
    return losses


def _plot(weights: dict[str, minitorch.Tensor], losses: list[float], options: Options) -> object:
    plt = pyplot()
    figure, (boundary_ax, loss_ax) = plt.subplots(1, 2, figsize=(9, 4))
    axis = np.linspace(-GRID_MARGIN, 1 + GRID_MARGIN, GRID_STEPS)
    xx, yy = np.meshgrid(axis, axis)
    grid = minitorch.from_numpy(np.stack([xx.ravel(), yy.ravel()], axis=1).astype(np.float32))
    with minitorch.no_grad():
        probability = forward(weights, grid).numpy().reshape(xx.shape)
    filled = boundary_ax.contourf(xx, yy, probability, levels=np.linspace(0, 1, 21), cmap="RdBu_r", alpha=0.7)
    boundary_ax.contour(xx, yy, probability, levels=[0.5], colors="k", linewidths=1)
    points = np.array(INPUTS)
    boundary_ax.scatter(points[:, 0], points[:, 1], c=TARGETS, cmap="RdBu_r", vmin=0, vmax=1, edgecolors="k", s=120)
    boundary_ax.set(title="XOR: P(label 1) of the 2-4-1 network", xlabel="x0", ylabel="x1", aspect="equal")
    figure.colorbar(filled, ax=boundary_ax)
    loss_ax.plot(losses)
    loss_ax.set(title="binary cross-entropy", xlabel="step", ylabel="loss", yscale="log")
    loss_ax.grid(True, alpha=0.3)
    return save_figure(figure, options.out_dir, PICTURE)


def run(options: Options) -> Outcome:
    """Train the 2-4-1 network on XOR by backpropagation, print the four predictions, plot the boundary."""
    minitorch.manual_seed(options.seed)
    clock = Stopwatch()
    weights = init_weights(options.seed)
    losses = train(weights, QUICK_STEPS if options.quick else STEPS, options)
    with minitorch.no_grad():
        probability = forward(weights, minitorch.tensor(INPUTS)).numpy()
    correct = int(np.sum((probability > 0.5) == np.array(TARGETS, dtype=bool)))
    for (a, b), p in zip(INPUTS, probability):
        print(f"  {a:g} xor {b:g} -> P(1) = {p:.3f}")
    print(f"{correct} of 4 correct; final loss {losses[-1]:.4f}")
    arrays = {name: weight.detach().numpy() for name, weight in weights.items()}
    picture = _plot(weights, losses, options)
    return Outcome(figures={"correct": float(correct), "loss": losses[-1]}, picture=picture, seconds=clock.elapsed,
                   arrays=arrays)
