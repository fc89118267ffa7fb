r"""Milestone 3: an MLP reads handwritten digits.

The 1797 scikit-learn digits (8x8 pixels, the set ``minitorch train --dataset digits`` uses)
flattened to 64 inputs, one hidden layer, ten logits:

.. math::
    \text{logits} = W_2\, \operatorname{relu}(W_1 x + b_1) + b_2,

trained on the cross-entropy with Adam. Needs ``nn.Linear``, ``CrossEntropyLoss`` and
``optim.Adam`` (steps 4-6) on the fast kernels (step 3).
"""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch import nn
from minitorch.datasets import DIGITS_CLASSES, DIGITS_FEATURES, DIGITS_SIDE, digits_split

from .classifier import fit, plot_curves, plot_predictions, predict
from .common import Options, Outcome, Stopwatch, pyplot, save_figure

HIDDEN = 64
EPOCHS = 20
QUICK_EPOCHS = 4
BATCH_SIZE = 32
LEARNING_RATE = 0.005
#: the grid of held-out predictions in the picture
GRID_ROWS, GRID_COLUMNS = 4, 8
PICTURE = "milestone3-digits-mlp.png"


def build_model() -> nn.Sequential:
    """64 -> 64 (ReLU) -> 10."""
    return nn.Sequential(nn.Linear(DIGITS_FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, DIGITS_CLASSES))


def run(options: Options) -> Outcome:
    """Train the MLP, report held-out accuracy and draw a grid of its predictions."""
    minitorch.manual_seed(options.seed)
    clock = Stopwatch()
    train, test = digits_split(seed=options.seed)
    model = build_model()
    test_labels = test.y.numpy()
    curves = fit(model, train.X, train.y, test.X, test_labels, QUICK_EPOCHS if options.quick else EPOCHS, BATCH_SIZE,
                 LEARNING_RATE, options, "digits MLP")
    predicted = predict(model, test.X)
    accuracy = float(np.mean(predicted == test_labels))
    print(f"held-out accuracy {accuracy:.1%} on {len(test_labels)} digits the MLP never saw; "
          f"final training loss {curves.loss[-1]:.4f}")
    plt = pyplot()
    figure = plt.figure(figsize=(12, 4.5))
    curve_ax = figure.add_axes((0.06, 0.12, 0.24, 0.75))
    plot_curves(curve_ax, curves)
    grid = figure.add_gridspec(GRID_ROWS, GRID_COLUMNS, left=0.42, right=0.98, hspace=0.45)
    axes = np.array([[figure.add_subplot(grid[r, c]) for c in range(GRID_COLUMNS)] for r in range(GRID_ROWS)])
    shown = GRID_ROWS * GRID_COLUMNS
    images = test.X.numpy()[:shown].reshape(shown, DIGITS_SIDE, DIGITS_SIDE)
    plot_predictions(axes, images, test_labels[:shown], predicted[:shown])
    figure.suptitle(f"digits MLP: held-out accuracy {accuracy:.1%} (red: wrong)")
    picture = save_figure(figure, options.out_dir, PICTURE, tight=False)
    arrays = {"predicted": predicted, **{name: value.detach().numpy() for name, value in model.state_dict().items()}}
    return Outcome(figures={"test_accuracy": accuracy, "loss": curves.loss[-1]}, picture=picture,
                   seconds=clock.elapsed, arrays=arrays)
