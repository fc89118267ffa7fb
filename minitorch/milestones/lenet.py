r"""Milestone 4: LeNet-5 (LeCun, Bottou, Bengio and Haffner, 1998) on the 8x8 digits.

LeNet-5 read 32x32 cheques with two rounds of convolution and subsampling, then three fully
connected layers. Here the images are 8x8, so each 5x5 convolution pads by 2 (the picture
keeps its size) and each pooling halves it:

.. math::
    1{\times}8{\times}8 \xrightarrow{\text{conv }5\times5,\ \text{pool}} 6{\times}4{\times}4
    \xrightarrow{\text{conv }5\times5,\ \text{pool}} 16{\times}2{\times}2
    \xrightarrow{} 120 \xrightarrow{} 84 \xrightarrow{} 10 .

Needs ``nn.Conv2d``, ``nn.AvgPool2d`` (steps 4-5), Adam (step 6) and the kernels (step 3).
"""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch import nn
from minitorch.datasets import DIGITS_CLASSES, DIGITS_SIDE, digits_split

from .classifier import fit, plot_curves, plot_predictions, predict
from .common import Options, Outcome, Stopwatch, pyplot, save_figure

KERNEL = 5
#: padding that keeps an image's size under a 5x5 convolution
SAME_PADDING = KERNEL // 2
POOL = 2
CHANNELS = (1, 6, 16)
FULLY_CONNECTED = (120, 84)
EPOCHS = 12
QUICK_EPOCHS = 3
BATCH_SIZE = 32
LEARNING_RATE = 0.005
#: the picture: rows (filters, then predictions) and the grid columns the curves take
PICTURE_ROWS = 3
CURVE_COLUMNS = 4
PICTURE = "milestone4-lenet.png"


def build_lenet() -> nn.Sequential:
    """LeNet-5 with tanh and average pooling, as in the paper, sized for 8x8 inputs."""
    side = DIGITS_SIDE // (POOL * POOL)
    return nn.Sequential(
        nn.Conv2d(CHANNELS[0], CHANNELS[1], KERNEL, padding=SAME_PADDING), nn.Tanh(), nn.AvgPool2d(POOL),
        nn.Conv2d(CHANNELS[1], CHANNELS[2], KERNEL, padding=SAME_PADDING), nn.Tanh(), nn.AvgPool2d(POOL),
        nn.Flatten(),
        nn.Linear(CHANNELS[2] * side * side, FULLY_CONNECTED[0]), nn.Tanh(),
        nn.Linear(FULLY_CONNECTED[0], FULLY_CONNECTED[1]), nn.Tanh(),
        nn.Linear(FULLY_CONNECTED[1], DIGITS_CLASSES),
    )


def run(options: Options) -> Outcome:
    """Train LeNet-5, report held-out accuracy, draw its first-layer filters and some predictions."""
    minitorch.manual_seed(options.seed)
    clock = Stopwatch()
    train, test = digits_split(seed=options.seed)
    model = build_lenet()
    test_labels = test.y.numpy()
    curves = fit(model, train.images, train.y, test.images, test_labels, QUICK_EPOCHS if options.quick else EPOCHS,
                 BATCH_SIZE, LEARNING_RATE, options, "LeNet-5")
    predicted = predict(model, test.images)
    accuracy = float(np.mean(predicted == test_labels))
    print(f"held-out accuracy {accuracy:.1%} on {len(test_labels)} digits; final training loss {curves.loss[-1]:.4f}")
    filters = model[0].weight.detach().numpy()[:, 0]
    plt = pyplot()
    figure = plt.figure(figsize=(12, 4.5))
    grid = figure.add_gridspec(PICTURE_ROWS, CURVE_COLUMNS + len(filters), left=0.06, right=0.98, wspace=0.3, hspace=0.5)
    plot_curves(figure.add_subplot(grid[:, :CURVE_COLUMNS - 1]), curves)
    limit = np.abs(filters).max()
    for column, kernel in enumerate(filters):
        ax = figure.add_subplot(grid[0, CURVE_COLUMNS + column])
        ax.imshow(kernel, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_title(f"conv1 filter {column}", fontsize=8)
        ax.axis("off")
    shown = (PICTURE_ROWS - 1) * len(filters)
    axes = np.array([[figure.add_subplot(grid[row, CURVE_COLUMNS + column]) for column in range(len(filters))]
                     for row in range(1, PICTURE_ROWS)])
    images = test.X.numpy()[:shown].reshape(shown, DIGITS_SIDE, DIGITS_SIDE)
    plot_predictions(axes, images, test_labels[:shown], predicted[:shown])
    figure.suptitle(f"LeNet-5 on 8x8 digits: held-out accuracy {accuracy:.1%}; top: the learned first-layer filters; "
                    "below: predictions (red: wrong)")
    picture = save_figure(figure, options.out_dir, PICTURE, tight=False)
    arrays = {"predicted": predicted, **{name: value.detach().numpy() for name, value in model.state_dict().items()}}
    return Outcome(figures={"test_accuracy": accuracy, "loss": curves.loss[-1]}, picture=picture,
                   seconds=clock.elapsed, arrays=arrays)
