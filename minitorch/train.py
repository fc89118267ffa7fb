"""Train an MLP on a 2-D teaching set or the handwritten digits, and plot how it went.

The whole loop of course step 9 with the framework's own pieces: a ``TensorDataset`` and a
shuffling ``DataLoader``, an ``nn.Sequential`` MLP, ``CrossEntropyLoss``, an optimizer from
``minitorch.optim`` and an optional cosine learning-rate schedule. Run::

    python -m minitorch.train                                 # the demo: the 2-D "split" set
    python -m minitorch.train --dataset digits                # 8x8 digits (needs minitorch[digits])
    minitorch train --dataset spiral --hidden 32 --layers 3 --optimizer sgd --lr 0.1
    minitorch train --distributed --nproc-per-node 2         # 2 ranks over MPI (needs minitorch[distributed])
    minitorch train --checkpoint out/run.pt --resume          # go on where an interrupted run stopped

It shows a progress bar (loss and accuracy), prints the time per epoch (the first apart:
it includes compiling or loading the Numba kernels) and the final accuracies, and saves a
PNG with the loss and accuracy curves (and, for 2-D sets, the decision boundary; for the
digits, the test confusion matrix) under ``out/``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np

import minitorch
from minitorch import nn, train_ranks
from minitorch.datasets import DATASETS, DIGITS_CLASSES, digits_split
from minitorch.tensor import Tensor
from minitorch.utils.data import DataLoader, TensorDataset

DIGITS = "digits"
DATASET_CHOICES = sorted(DATASETS) + [DIGITS]
OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop", "adagrad": "Adagrad"}
SCHEDULES = ("none", "cosine", "step")
BACKENDS = ("cpu", "simple")
DEFAULT_DATASET = "split"
DEFAULT_SEED = 0
DEFAULT_OUT_DIR = Path("out")
GRAPH_CLASSES = 2
GRAPH_FEATURES = 2
#: the 2-D sets are mapped from the unit square onto [-1, 1]^2: centred inputs train faster
GRAPH_CENTRE = 0.5
GRAPH_SCALE = 2.0
#: StepLR: decay by this factor at each third of the run
STEP_SCHEDULE_GAMMA = 0.3
STEP_SCHEDULE_PARTS = 3
#: plots: decision-boundary grid points per side, margin around the data, figure size and dpi
GRID_STEPS = 100
PLOT_MARGIN = 0.05
CONTOUR_LEVELS = 21
PANEL_SIZE = (5.0, 4.2)
FIGURE_DPI = 100
MS_PER_S = 1000.0


@dataclass(frozen=True)
class Preset:
    """Per-data-set defaults (each one can be overridden on the command line)."""

    points: int
    hidden: int
    layers: int
    epochs: int
    batch_size: int
    optimizer: str
    lr: float
    schedule: str


PRESETS = {
    "graph": Preset(points=200, hidden=16, layers=2, epochs=40, batch_size=25, optimizer="adam", lr=0.03,
                    schedule="cosine"),
    DIGITS: Preset(points=0, hidden=64, layers=1, epochs=20, batch_size=32, optimizer="adam", lr=0.005,
                   schedule="cosine"),
}


@dataclass
class Data:
    """Train and test tensors (features already preprocessed) and what the plots need."""

    name: str
    X_train: Tensor  # noqa: N815
    y_train: Tensor
    X_test: Tensor  # noqa: N815
    y_test: Tensor
    classes: int
    raw_train: Optional[np.ndarray] = None  # 2-D sets: the points in the unit square, for the plot


@dataclass
class History:
    """Per-epoch figures of one run."""

    train_loss: list[float] = field(default_factory=list)
    train_accuracy: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)


@dataclass
class TrainResult:
    """What :func:`run` did: the final figures, the per-epoch history, the model and the PNG's path."""

    train_accuracy: float
    test_accuracy: float
    train_loss: float
    test_loss: float
    history: History
    model: nn.Module
    out: Optional[Path]


# ---- data and model ----


def graph_features(points: Tensor) -> Tensor:
    """Map 2-D points from the unit square onto [-1, 1]^2."""
    return (points - GRAPH_CENTRE) * GRAPH_SCALE


def load_data(dataset: str, points: int, seed: int) -> Data:
    """Train and test data: for a 2-D set a second draw of the same rule, for the digits held-out images."""
    if dataset == DIGITS:
        train, test = digits_split(seed=seed)
        return Data(DIGITS, train.X, train.y, test.X, test.y, DIGITS_CLASSES)
    make = DATASETS[dataset]
    train, test = make(points, seed=seed), make(points, seed=seed + 1)
    return Data(dataset, graph_features(train.X), train.y, graph_features(test.X), test.y, GRAPH_CLASSES,
                raw_train=train.X.numpy())


def build_mlp(in_features: int, hidden: int, layers: int, classes: int) -> nn.Sequential:
    """``layers`` hidden ``Linear + ReLU`` blocks of width ``hidden``, then a ``Linear`` to the class logits."""
    modules: list[nn.Module] = []
    width = in_features
    for _ in range(layers):
        modules += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    modules.append(nn.Linear(width, classes))
    return nn.Sequential(*modules)


def build_optimizer(name: str, parameters: Any, lr: float, momentum: float,
                    weight_decay: float) -> minitorch.optim.Optimizer:
    """The optimizer called ``name`` (``sgd``, ``adam``, ...); ``momentum`` is used by SGD and RMSprop."""
    cls = getattr(minitorch.optim, OPTIMIZERS[name])
    options: dict[str, Any] = {"lr": lr, "weight_decay": weight_decay}
    if name in ("sgd", "rmsprop"):
        options["momentum"] = momentum
    return cls(parameters, **options)


def build_schedule(name: str, optimizer: minitorch.optim.Optimizer, epochs: int) -> Optional[Any]:
    """A per-epoch learning-rate schedule: cosine annealing to 0, steps down by thirds, or none."""
    schedulers = minitorch.optim.lr_scheduler
    if name == "cosine":
        return schedulers.CosineAnnealingLR(optimizer, T_max=epochs)
    if name == "step":
        return schedulers.StepLR(optimizer, step_size=max(1, epochs // STEP_SCHEDULE_PARTS), gamma=STEP_SCHEDULE_GAMMA)
    return None


# ---- the loop ----


def train_epoch(model: nn.Module, loader: DataLoader, optimizer: minitorch.optim.Optimizer,
                loss_fn: nn.Module) -> tuple[float, float]:
    """One pass over ``loader``: for each batch, forward, loss, backward, optimizer step.

    Returns the mean loss and the accuracy over the epoch's samples, each batch measured as
    the model saw it just before its update (what training loops usually report).
    """
    # BEGIN SOLUTION 9.4
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for inputs, targets in loader:
        optimizer.zero_grad()
        logits = model(inputs)
        loss = loss_fn(logits, targets)
        loss.backward()
        optimizer.step()
        count = targets.shape[0]
        total_loss += loss.item() * count
        correct += int((logits.detach().argmax(dim=1) == targets).sum().item())
        seen += count
    return total_loss / max(seen, 1), correct / max(seen, 1)
    # END SOLUTION


def evaluate(model: nn.Module, inputs: Tensor, targets: Tensor, loss_fn: nn.Module) -> tuple[float, float]:
    """Mean loss and accuracy of ``model`` on all of ``inputs`` (eval mode, no graph)."""
    # BEGIN SOLUTION 9.4
    model.eval()
    with minitorch.no_grad():
        logits = model(inputs)
        loss = loss_fn(logits, targets).item()
        correct = int((logits.argmax(dim=1) == targets).sum().item())
    return loss, correct / max(targets.shape[0], 1)
    # END SOLUTION


def predict(model: nn.Module, inputs: Tensor) -> np.ndarray:
    """Predicted classes as a NumPy array."""
    model.eval()
    with minitorch.no_grad():
        return model(inputs).argmax(dim=1).cpu().numpy()


def fit(model: nn.Module, data: Data, optimizer: minitorch.optim.Optimizer, schedule: Optional[Any], epochs: int,
        batch_size: int, device: str, seed: int, progress: bool = True, *, distributed: bool = False,
        checkpoint: Optional[Path] = None, resume: bool = False) -> History:
    """Train for ``epochs`` passes over shuffled minibatches; record loss, accuracy, rate and time per epoch.

    ``distributed``: ``model`` is a ``DistributedDataParallel`` replica and each rank takes its
    share of every batch; ``checkpoint``: saved after each epoch, and with ``resume`` the run
    goes on from it (see :mod:`minitorch.train_ranks`).
    """
    from tqdm import tqdm

    loss_fn = nn.CrossEntropyLoss()
    X_train, y_train = data.X_train.to(device), data.y_train.to(device)  # noqa: N806
    X_test, y_test = data.X_test.to(device), data.y_test.to(device)  # noqa: N806
    order = minitorch.Generator().manual_seed(seed)
    loader = train_ranks.make_loader(TensorDataset(X_train, y_train), batch_size, order, distributed)
    history = History()
    first = 0
    if resume and checkpoint is not None and checkpoint.exists():
        first = train_ranks.load_checkpoint(checkpoint, model, optimizer, schedule, history, order)
    bar = tqdm(range(first, epochs), initial=first, total=epochs, desc=f"training on {data.name}", unit="epoch",
               disable=not (progress and train_ranks.is_main_rank()))
    for epoch in bar:
        start = time.perf_counter()
        train_ranks.start_epoch(loader, epoch)
        history.lr.append(optimizer.param_groups[0]["lr"])
        train_loss, train_accuracy = train_epoch(model, loader, optimizer, loss_fn)
        train_loss, train_accuracy = train_ranks.average_over_ranks([train_loss, train_accuracy])
        if schedule is not None:
            schedule.step()
        history.epoch_seconds.append(time.perf_counter() - start)
        test_loss, test_accuracy = evaluate(model, X_test, y_test, loss_fn)
        history.train_loss.append(train_loss)
        history.train_accuracy.append(train_accuracy)
        history.test_loss.append(test_loss)
        history.test_accuracy.append(test_accuracy)
        bar.set_postfix(loss=f"{train_loss:.4f}", acc=f"{train_accuracy:.1%}", test_acc=f"{test_accuracy:.1%}",
                        refresh=False)
        if checkpoint is not None:
            train_ranks.save_checkpoint(checkpoint, model, optimizer, schedule, epoch + 1, history, order)
    return history


# ---- the picture ----


def _boundary(ax: Any, model: nn.Module, data: Data, device: str, accuracy: float) -> None:
    """The model's probability of class 1 over the unit square, with the training points."""
    points = data.raw_train if data.raw_train is not None and len(data.raw_train) else np.zeros((1, GRAPH_FEATURES))
    low, high = points.min(axis=0) - PLOT_MARGIN, points.max(axis=0) + PLOT_MARGIN
    xx, yy = np.meshgrid(np.linspace(low[0], high[0], GRID_STEPS), np.linspace(low[1], high[1], GRID_STEPS))
    grid = minitorch.from_numpy(np.stack([xx.ravel(), yy.ravel()], axis=1).astype(np.float32))
    model.eval()
    with minitorch.no_grad():
        logits = model(graph_features(grid).to(device))
        probability = nn.functional.softmax(logits, dim=1)[:, 1].cpu().numpy().reshape(xx.shape)
    filled = ax.contourf(xx, yy, probability, levels=np.linspace(0, 1, CONTOUR_LEVELS), cmap="RdBu_r", alpha=0.6)
    ax.contour(xx, yy, probability, levels=[0.5], colors="k", linewidths=1)
    ax.scatter(points[:, 0], points[:, 1], c=data.y_train.numpy(), cmap="RdBu_r", vmin=0, vmax=1, edgecolors="k", s=18)
    ax.set(title=f"{data.name}: decision boundary (train accuracy {accuracy:.0%})", xlabel="x0", ylabel="x1")
    ax.figure.colorbar(filled, ax=ax, label="P(class 1)")


def confusion_matrix(targets: np.ndarray, predicted: np.ndarray, classes: int) -> np.ndarray:
    """``matrix[i, j]`` = how many samples of class ``i`` were predicted as ``j``."""
    matrix = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(matrix, (targets, predicted), 1)
    return matrix


def _confusion(ax: Any, model: nn.Module, data: Data, device: str, accuracy: float) -> None:
    matrix = confusion_matrix(data.y_test.numpy(), predict(model, data.X_test.to(device)), data.classes)
    image = ax.imshow(matrix, cmap="Blues")
    for (row, column), count in np.ndenumerate(matrix):
        if count:
            ax.text(column, row, str(count), ha="center", va="center", fontsize=7,
                    color="white" if count > matrix.max() / 2 else "black")
    ax.set(title=f"test confusion matrix (accuracy {accuracy:.1%})", xlabel="predicted", ylabel="true",
           xticks=range(data.classes), yticks=range(data.classes))
    ax.figure.colorbar(image, ax=ax)


def save_plot(model: nn.Module, data: Data, history: History, device: str, out: Path) -> None:
    """Loss and accuracy per epoch (train and test), and the boundary or the confusion matrix."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (loss_ax, accuracy_ax, third_ax) = plt.subplots(1, 3, figsize=(PANEL_SIZE[0] * 3, PANEL_SIZE[1]))
    epochs = range(1, len(history.train_loss) + 1)
    loss_ax.plot(epochs, history.train_loss, label="train")
    loss_ax.plot(epochs, history.test_loss, label="test")
    loss_ax.set(title="loss (cross-entropy)", xlabel="epoch", ylabel="loss", yscale="log")
    accuracy_ax.plot(epochs, history.train_accuracy, label="train")
    accuracy_ax.plot(epochs, history.test_accuracy, label="test")
    accuracy_ax.set(title="accuracy", xlabel="epoch", ylabel="accuracy", ylim=(0, 1.02))
    for ax in (loss_ax, accuracy_ax):
        ax.grid(True, alpha=0.3)
        ax.legend()
    final_train = history.train_accuracy[-1] if history.train_accuracy else 0.0
    if data.raw_train is not None:
        _boundary(third_ax, model, data, device, final_train)
    else:
        _confusion(third_ax, model, data, device, history.test_accuracy[-1] if history.test_accuracy else 0.0)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=FIGURE_DPI)
    plt.close(fig)


# ---- the command line ----


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``minitorch train`` (also ``python -m minitorch.train``)."""
    parser.add_argument("--dataset", choices=DATASET_CHOICES, default=DEFAULT_DATASET,
                        help="a generated 2-D set or the 8x8 handwritten digits (default: %(default)s)")
    parser.add_argument("--points", type=int, help="2-D sets: points in the training set (and again in the test set)")
    parser.add_argument("--hidden", type=int, help="width of each hidden layer")
    parser.add_argument("--layers", type=int, help="number of hidden layers")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--optimizer", choices=sorted(OPTIMIZERS))
    parser.add_argument("--lr", type=float, help="learning rate (at the start of the schedule)")
    parser.add_argument("--momentum", type=float, default=0.9, help="SGD and RMSprop momentum (default: %(default)s)")
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--schedule", choices=SCHEDULES, help="per-epoch learning-rate schedule")
    parser.add_argument("--backend", choices=BACKENDS, default="cpu",
                        help="kernels for device 'cpu': Numba ('cpu', default) or pure Python ('simple')")
    parser.add_argument("--device", default="cpu", help="'cpu' or 'cuda' (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seeds the data, the weights and the batch order")
    parser.add_argument("--out", type=Path, help="where to save the PNG (default: out/train-DATASET.png)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    train_ranks.add_arguments(parser)


def resolve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """Fill the options left out from the data set's preset and check them."""
    preset = PRESETS[DIGITS if args.dataset == DIGITS else "graph"]
    for name in ("points", "hidden", "layers", "epochs", "batch_size", "optimizer", "lr", "schedule"):
        if getattr(args, name) is None:
            setattr(args, name, getattr(preset, name))
    for name in ("hidden", "epochs", "batch_size") + (("points",) if args.dataset != DIGITS else ()):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.layers < 0:
        parser.error("--layers must be at least 0")
    if args.lr <= 0:
        parser.error("--lr must be positive")
    if args.device not in ("cpu", "cuda"):
        parser.error(f"--device must be 'cpu' or 'cuda', got {args.device!r}")
    if args.device == "cuda" and not minitorch.cuda.is_available():
        parser.error("--device cuda: no CUDA device is available")
    if args.out is None:
        args.out = DEFAULT_OUT_DIR / f"train-{args.dataset}.png"
    train_ranks.check(parser, args)
    return args


def _where(args: argparse.Namespace) -> str:
    """Where the model runs, for the summary line: the cpu names its kernels (``--backend``),
    which a cuda run does not use."""
    return f"device cpu, backend {args.backend!r}" if args.device == "cpu" else f"device {args.device}"


def _report_times(seconds: list[float]) -> None:
    rest = seconds[1:]
    mean_rest = f"{statistics.mean(rest) * MS_PER_S:.1f} ms" if rest else "n/a"
    train_ranks.say(f"time per epoch: first {seconds[0] * MS_PER_S:.1f} ms (includes compiling or loading the kernels it is "
          f"first to use), mean of the other {len(rest)}: {mean_rest}; training in all {sum(seconds):.2f} s")


@contextlib.contextmanager
def _backend(name: str) -> Iterator[None]:
    with minitorch.backends.use(name):
        yield


def run(args: argparse.Namespace) -> Union[TrainResult, int]:
    """Load the data, build model and optimizer, train, print the figures, save the plot.

    With ``--distributed`` outside a launched job: start the job on ``--nproc-per-node`` ranks
    and return its exit status.
    """
    if args.distributed and not train_ranks.launched():
        return train_ranks.relaunch(args, _options())
    joined = train_ranks.join(args.distributed)
    try:
        return _train(args)
    finally:
        if joined:
            minitorch.distributed.destroy_process_group()


def _train(args: argparse.Namespace) -> TrainResult:
    say = train_ranks.say
    with _backend(args.backend):
        data = load_data(args.dataset, args.points, args.seed)
        minitorch.manual_seed(args.seed)
        model = build_mlp(data.X_train.shape[1], args.hidden, args.layers, data.classes).to(args.device)
        replica = train_ranks.wrap(model, args.distributed)
        optimizer = build_optimizer(args.optimizer, replica.parameters(), args.lr, args.momentum, args.weight_decay)
        schedule = build_schedule(args.schedule, optimizer, args.epochs)
        widths = [data.X_train.shape[1]] + [args.hidden] * args.layers + [data.classes]
        ranks = minitorch.distributed.get_world_size() if args.distributed else 1
        batches = (f"batches of {train_ranks.per_rank_batch(args.batch_size, ranks) * ranks} "
                   f"({train_ranks.per_rank_batch(args.batch_size, ranks)} on each of {ranks} ranks)"
                   if args.distributed else f"batches of {args.batch_size}")
        say(f"{data.name}: {len(data.y_train)} training and {len(data.y_test)} test samples; "
            f"MLP {'-'.join(map(str, widths))}; {OPTIMIZERS[args.optimizer]} lr {args.lr} ({args.schedule} schedule), "
            f"{batches}; {args.epochs} epochs; {_where(args)}; seed {args.seed}")
        history = fit(replica, data, optimizer, schedule, args.epochs, args.batch_size, args.device, args.seed,
                      progress=not args.no_progress, distributed=args.distributed, checkpoint=args.checkpoint,
                      resume=args.resume)
        loss_fn = nn.CrossEntropyLoss()
        train_loss, train_accuracy = evaluate(model, data.X_train.to(args.device), data.y_train.to(args.device), loss_fn)
        test_loss, test_accuracy = evaluate(model, data.X_test.to(args.device), data.y_test.to(args.device), loss_fn)
    if train_ranks.is_main_rank():
        save_plot(model, data, history, args.device, args.out)  # on the default backend: the grid is large
    if history.epoch_seconds:
        _report_times(history.epoch_seconds)
    say(f"final accuracy: train {train_accuracy:.1%} (loss {train_loss:.4f}), test {test_accuracy:.1%} "
        f"(loss {test_loss:.4f})")
    say(f"saved {args.out}")
    return TrainResult(train_accuracy, test_accuracy, train_loss, test_loss, history, model, args.out)


def _options() -> dict[str, argparse.Action]:
    """The options of ``minitorch train`` by destination, to hand the same ones to each rank."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return {action.dest: action for action in parser._actions if action.option_strings and action.dest != "help"}  # noqa: SLF001


def main(argv: Optional[Sequence[str]] = None) -> Union[TrainResult, int]:
    """``python -m minitorch.train [options]``."""
    parser = argparse.ArgumentParser(prog="python -m minitorch.train", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(resolve(parser, parser.parse_args(argv)))


if __name__ == "__main__":
    outcome = main()
    sys.exit(outcome if isinstance(outcome, int) else 0)
