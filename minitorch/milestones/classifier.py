"""The minibatch loop the digits milestones (3 and 4) share: cross-entropy, Adam, shuffled batches.

Written out here rather than taken from ``minitorch.train`` so that the milestones need only
steps 0-6 (no ``DataLoader``, step 9).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import minitorch
from minitorch import nn

from .common import Options, batches, progress


@dataclass
class Curves:
    """Mean training loss and held-out accuracy after each epoch."""

    loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)


def predict(model: nn.Module, inputs: minitorch.Tensor) -> np.ndarray:
    """The predicted class of each input (eval mode, no graph)."""
    model.eval()
    with minitorch.no_grad():
        return model(inputs).argmax(dim=1).numpy()


def fit(model: nn.Module, inputs: minitorch.Tensor, targets: minitorch.Tensor, test_inputs: minitorch.Tensor,
        test_targets: np.ndarray, epochs: int, batch_size: int, lr: float, options: Options, description: str) -> Curves:
    """Train ``model`` with Adam on shuffled minibatches for ``epochs`` passes."""
    optimizer = minitorch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    order = np.random.default_rng(options.seed)
    curves = Curves()
    bar = progress(range(epochs), options, description)
    for _ in bar:
        model.train()
        total, seen = 0.0, 0
        for rows in batches(inputs.shape[0], batch_size, order):
            index = minitorch.from_numpy(rows.astype(np.int64))
            optimizer.zero_grad()
            loss = loss_fn(model(inputs[index]), targets[index])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
            seen += len(rows)
        curves.loss.append(total / seen)
        curves.test_accuracy.append(float(np.mean(predict(model, test_inputs) == test_targets)))
        bar.set_postfix(loss=f"{curves.loss[-1]:.4f}", test_acc=f"{curves.test_accuracy[-1]:.1%}", refresh=False)
    return curves


def plot_curves(ax: object, curves: Curves) -> None:
    """Training loss and held-out accuracy per epoch on one axis pair."""
    epochs = range(1, len(curves.loss) + 1)
    ax.plot(epochs, curves.loss, color="tab:blue", label="train loss")
    ax.set(xlabel="epoch", ylabel="cross-entropy", title="training")
    twin = ax.twinx()
    twin.plot(epochs, curves.test_accuracy, color="tab:orange", label="test accuracy")
    twin.set(ylabel="held-out accuracy", ylim=(0, 1.02))
    ax.grid(True, alpha=0.3)


def plot_predictions(axes: np.ndarray, images: np.ndarray, truth: np.ndarray, predicted: np.ndarray) -> None:
    """One held-out digit per axis, titled with the prediction (red when wrong)."""
    for ax, image, label, guess in zip(axes.ravel(), images, truth, predicted):
        ax.imshow(image, cmap="gray_r")
        ax.set_title(str(int(guess)), color="black" if guess == label else "red", fontsize=9)
        ax.axis("off")

