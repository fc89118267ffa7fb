"""Train a small MLP on a generated 2-D data set and plot what it learned (``make demo``).

Written with tensors and autograd only (no ``nn`` or ``optim`` yet): the parameters are
leaf tensors with ``requires_grad=True``, the loss is binary cross-entropy built from
tensor ops, and plain SGD updates the parameters in place under ``no_grad``. Run::

    python -m minitorch.demo --dataset xor --epochs 400

It prints a progress bar (loss, accuracy), the time per epoch (the first one separately:
it includes loading or compiling the Numba kernels), the final accuracy, and saves a PNG
with the loss curve and the decision boundary (``out/demo.png`` unless ``--out``).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

import minitorch
from minitorch.datasets import DATASETS, Graph
from minitorch.tensor import Tensor

DEFAULT_DATASET = "split"
DEFAULT_POINTS = 100
DEFAULT_HIDDEN = 10
DEFAULT_EPOCHS = 1500
DEFAULT_LR = 0.5
#: points per SGD step; 0 means the whole data set (full-batch gradient descent)
DEFAULT_BATCH_SIZE = 0
DEFAULT_SEED = 0
DEFAULT_OUT = Path("out/demo.png")
INPUT_FEATURES = 2
#: the model first maps the unit square onto [-1, 1]^2: centred inputs train much faster
INPUT_CENTRE = 0.5
INPUT_SCALE = 2.0
#: a logit above this is class 1 (probability above one half)
DECISION_LOGIT = 0.0
#: decision-boundary plot: grid points per side, and the margin around the data
GRID_STEPS = 120
PLOT_MARGIN = 0.05
CONTOUR_LEVELS = 21
FIGURE_SIZE = (11.0, 4.8)
FIGURE_DPI = 100
MS_PER_S = 1000.0


@dataclass
class MLP:
    """``in -> hidden -> hidden -> 1`` with ReLU between layers; the output is a logit."""

    weights: list[Tensor]
    biases: list[Tensor]

    @classmethod
    def create(cls, hidden: int) -> "MLP":
        """PyTorch's ``nn.Linear`` initialisation: uniform in ``±1/sqrt(fan_in)``."""
        sizes = [INPUT_FEATURES, hidden, hidden, 1]
        weights, biases = [], []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / math.sqrt(fan_in)
            weights.append(_uniform((fan_in, fan_out), bound))
            biases.append(_uniform((fan_out,), bound))
        return cls(weights, biases)

    def parameters(self) -> list[Tensor]:
        return self.weights + self.biases

    def __call__(self, X: Tensor) -> Tensor:  # noqa: N803 - a design matrix
        """Logits of shape ``(n,)`` for points ``X`` of shape ``(n, 2)``."""
        h = (X - INPUT_CENTRE) * INPUT_SCALE
        for layer, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if layer < len(self.weights) - 1:
                h = h.relu()
        return h.view(-1)


def _uniform(shape: tuple[int, ...], bound: float) -> Tensor:
    """A leaf parameter uniform in ``[-bound, bound)``, drawn from minitorch's seeded generator."""
    return ((minitorch.rand(*shape) * 2 - 1) * bound).requires_grad_()


def bce_with_logits(logits: Tensor, target: Tensor) -> Tensor:
    """Mean binary cross-entropy of ``sigmoid(logits)`` against 0/1 ``target``.

    ``-[y log p + (1-y) log(1-p)]`` with ``p = sigmoid(z)`` equals ``softplus(z) - y z``,
    and ``softplus(z) = log(e^0 + e^z) = m + log(e^-m + e^(z-m))`` for any constant ``m``.
    With ``m = max(z, 0)`` (detached: a constant) both exponents are at most 0 and one is
    0, so the log's argument lies in ``[1, 2]``: no overflow, no ``log(0)``, and autograd
    gives the exact gradient ``sigmoid(z) - y`` everywhere (also at ``z = 0``).
    """
    shift = logits.detach().relu()
    softplus = shift + ((-shift).exp() + (logits - shift).exp()).log()
    return (softplus - target * logits).mean()


def _correct(logits: Tensor, labels: Tensor) -> int:
    """How many points' predicted class (logit above 0) is their 0/1 label."""
    predicted = logits.detach().numpy() > DECISION_LOGIT
    return int(np.sum(predicted == labels.numpy().astype(bool)))


def sgd_step(parameters: Sequence[Tensor], lr: float) -> None:
    """``p -= lr * p.grad`` for each parameter, then clear the gradients."""
    with minitorch.no_grad():
        for p in parameters:
            p.sub_(lr * p.grad)
            p.grad = None


@dataclass
class History:
    """Per-epoch figures of one training run."""

    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)


def _batches(n: int, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Index arrays of a shuffled pass over ``n`` points (one array when full-batch)."""
    if batch_size <= 0 or batch_size >= n:
        return [np.arange(n)]
    order = rng.permutation(n)
    return [order[start : start + batch_size] for start in range(0, n, batch_size)]


def _train_epoch(model: MLP, X: np.ndarray, target: np.ndarray, lr: float, batch_size: int,  # noqa: N803
                 rng: np.random.Generator) -> tuple[float, float]:
    """One pass of SGD over the data in (shuffled) minibatches.

    Returns the mean loss and the accuracy of the batches' forward passes, i.e. each batch
    as the model saw it just before its update, as PyTorch training loops usually report.
    """
    total_loss, correct = 0.0, 0
    for index in _batches(len(X), batch_size, rng):
        labels = minitorch.from_numpy(target[index])
        logits = model(minitorch.from_numpy(X[index]))
        loss = bce_with_logits(logits, labels)
        loss.backward()
        sgd_step(model.parameters(), lr)
        total_loss += loss.item() * len(index)
        correct += _correct(logits, labels)
    return total_loss / len(X), correct / len(X)


def train(model: MLP, graph: Graph, epochs: int, lr: float, batch_size: int, seed: int,
          progress: bool = True) -> History:
    """Train ``model`` on ``graph`` for ``epochs`` passes; record loss, accuracy and time."""
    from tqdm import tqdm

    X = graph.X.numpy()  # noqa: N806
    target = graph.y.numpy().astype(np.float32)
    rng = np.random.default_rng(seed)
    history = History()
    bar = tqdm(range(epochs), desc=f"training on {graph.name}", unit="epoch", disable=not progress)
    for _ in bar:
        start = time.perf_counter()
        loss, correct = _train_epoch(model, X, target, lr, batch_size, rng)
        history.epoch_seconds.append(time.perf_counter() - start)
        history.losses.append(loss)
        history.accuracies.append(correct)
        bar.set_postfix(loss=f"{loss:.4f}", acc=f"{correct:.0%}", refresh=False)
    return history


def evaluate(model: MLP, graph: Graph) -> tuple[float, float]:
    """Loss and accuracy of ``model`` on all of ``graph``."""
    with minitorch.no_grad():
        logits = model(graph.X)
        labels = graph.y.float()
        return bce_with_logits(logits, labels).item(), _correct(logits, labels) / max(len(graph), 1)


def predict_grid(model: MLP, graph: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(xx, yy, p)``: a grid around the data and the model's probability of class 1 on it."""
    points = graph.X.numpy()
    low = points.min(axis=0) - PLOT_MARGIN if len(points) else np.zeros(INPUT_FEATURES)
    high = points.max(axis=0) + PLOT_MARGIN if len(points) else np.ones(INPUT_FEATURES)
    xx, yy = np.meshgrid(np.linspace(low[0], high[0], GRID_STEPS), np.linspace(low[1], high[1], GRID_STEPS))
    grid = np.stack([xx.ravel(), yy.ravel()], axis=1).astype(np.float32)
    with minitorch.no_grad():
        probability = model(minitorch.from_numpy(grid)).sigmoid().numpy()
    return xx, yy, probability.reshape(xx.shape)


def save_plot(model: MLP, graph: Graph, history: History, final_accuracy: float, out: Path) -> None:
    """Two panels: the loss per epoch, and the decision boundary with the labelled points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (loss_ax, boundary_ax) = plt.subplots(1, 2, figsize=FIGURE_SIZE)
    loss_ax.plot(range(1, len(history.losses) + 1), history.losses)
    loss_ax.set(title="training loss (binary cross-entropy)", xlabel="epoch", ylabel="loss", yscale="log")
    loss_ax.grid(True, alpha=0.3)

    xx, yy, probability = predict_grid(model, graph)
    filled = boundary_ax.contourf(xx, yy, probability, levels=np.linspace(0, 1, CONTOUR_LEVELS), cmap="RdBu_r", alpha=0.6)
    boundary_ax.contour(xx, yy, probability, levels=[0.5], colors="k", linewidths=1)
    points, labels = graph.X.numpy(), graph.y.numpy()
    boundary_ax.scatter(points[:, 0], points[:, 1], c=labels, cmap="RdBu_r", vmin=0, vmax=1, edgecolors="k", s=25)
    boundary_ax.set(title=f"{graph.name}: decision boundary (accuracy {final_accuracy:.0%})", xlabel="x0", ylabel="x1")
    fig.colorbar(filled, ax=boundary_ax, label="P(class 1)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=FIGURE_DPI)
    plt.close(fig)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m minitorch.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(DATASETS), default=DEFAULT_DATASET)
    parser.add_argument("--points", type=int, default=DEFAULT_POINTS, help="number of points to generate")
    parser.add_argument("--hidden", type=int, default=DEFAULT_HIDDEN, help="width of both hidden layers")
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    parser.add_argument("--lr", type=float, default=DEFAULT_LR, help="SGD learning rate")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE,
                        help="points per SGD step (0: full batch)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seeds the data, the weights and the batch order")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to save the PNG")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    for name in ("points", "hidden", "epochs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return args


@dataclass
class DemoResult:
    """What :func:`main` did: the final accuracy and loss, the history and the PNG's path."""

    accuracy: float
    loss: float
    history: History
    out: Path


def _report_times(history: History, setup_s: float, finish_s: float) -> None:
    """Print the time per epoch (first one apart: Numba compiles or loads kernels) and in all."""
    seconds = history.epoch_seconds
    rest = seconds[1:]
    mean_rest = f"{statistics.mean(rest) * MS_PER_S:.1f} ms" if rest else "n/a"
    print(f"time per epoch (backend {minitorch.backends.get_cpu_backend_name()!r}): "
          f"first {seconds[0] * MS_PER_S:.1f} ms (includes compiling or loading the Numba kernels it is first to use), "
          f"mean of the other {len(rest)}: {mean_rest}")
    print(f"time in all: setup {setup_s:.2f} s, training {sum(seconds):.2f} s, evaluation and plot {finish_s:.2f} s")


def main(argv: Optional[Sequence[str]] = None) -> DemoResult:
    """Generate the data, train, print the timings and accuracy, save the plot."""
    args = parse_args(argv)
    start = time.perf_counter()
    graph = DATASETS[args.dataset](args.points, seed=args.seed)
    minitorch.manual_seed(args.seed)
    model = MLP.create(args.hidden)
    setup_s = time.perf_counter() - start
    batch = "full batch" if args.batch_size <= 0 else f"batches of {args.batch_size}"
    print(f"{args.dataset}: {args.points} points; MLP 2-{args.hidden}-{args.hidden}-1; "
          f"SGD lr {args.lr}, {batch}; {args.epochs} epochs; seed {args.seed}")
    history = train(model, graph, args.epochs, args.lr, args.batch_size, args.seed, progress=not args.no_progress)
    start = time.perf_counter()
    final_loss, final_accuracy = evaluate(model, graph)
    save_plot(model, graph, history, final_accuracy, args.out)
    _report_times(history, setup_s, time.perf_counter() - start)
    print(f"final training accuracy: {final_accuracy:.1%} (loss {final_loss:.4f})")
    print(f"saved {args.out}")
    return DemoResult(final_accuracy, final_loss, history, args.out)


if __name__ == "__main__":
    main()
