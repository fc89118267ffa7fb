"""Layers and training: conv2d, conv_transpose2d, a LeNet step, an MLP step, and the course's standard training run."""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
from typing import Any, Callable, Iterator, Optional

import numpy as np

import minitorch
import harness
from harness import MINITORCH, TORCH, Call, Case, Context, Factory, NotAvailable, Row, Target

CONV_SHAPE = (32, 3, 32, 32)  # batch 32, 3 channels, 32 x 32
CONV_OUT, KERNEL_SIZE = 16, 3
#: a DCGAN generator's upsampling stage: (16, 64, 8, 8) -> (16, 32, 16, 16), kernel 4, stride 2, padding 1
CONV_T_SHAPE, CONV_T_OUT, CONV_T_KERNEL = (16, 64, 8, 8), 32, 4
LENET_BATCH = 64
#: the issue's MLP: 784 -> 256 -> 10, batch 64, SGD, cross-entropy
MLP_WIDTHS = (784, 256, 10)
MLP_BATCH = 64
#: the pure-Python simple backend needs minutes for the MLP above: it gets this smaller one
SMALL_MLP_WIDTHS = (64, 32, 10)
SMALL_MLP_BATCH = 16
LEARNING_RATE = 0.01
#: issue 23: the MLP step, conv2d forward+backward and the LeNet step at most 1.5x PyTorch
MLP_TARGET = Target("torch_ratio", 1.5)
LAYER_TARGET = Target("torch_ratio", 1.5)
#: the course's standard run: the training CLI on the split set, 50 points, hidden 100, batches of 10
COURSE_ARGS = ("--dataset", "split", "--points", "50", "--hidden", "100", "--batch-size", "10", "--no-progress")
#: issue 23's digits run: the training CLI on scikit-learn's 8x8 digits (its preset: one hidden layer,
#: Adam, batches of 32) with 128 hidden units, 64-128-10; one epoch per sample, at most 1.5x PyTorch
DIGITS_ARGS = ("--dataset", "digits", "--hidden", "128", "--no-progress")
DIGITS_TARGET = Target("torch_ratio", 1.5)
SIMPLE, CUDA = "simple", "cuda"


@contextlib.contextmanager
def cpu_backend(name: Optional[str]) -> Iterator[None]:
    """Device 'cpu' computed by backend ``name`` inside the block (``None``: the default)."""
    if name is None:
        yield
    else:
        with minitorch.backends.use(name):
            yield


def on_backend(name: Optional[str], call: Call) -> Call:
    if name is None:
        return call

    def run() -> Any:
        with cpu_backend(name):
            return call()

    return run


# ---- conv2d and LeNet (course step 5) ----


def conv_step(lib: Any, nn: Any) -> Call:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(CONV_SHAPE).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((CONV_OUT, CONV_SHAPE[1], KERNEL_SIZE, KERNEL_SIZE)).astype(np.float32),
                   requires_grad=True)
    b = lib.tensor(np.zeros(CONV_OUT, np.float32), requires_grad=True)

    def step() -> None:
        x.grad = w.grad = b.grad = None
        nn.functional.conv2d(x, w, b, padding=1).sum().backward()

    return step


def conv_transpose_step(lib: Any, nn: Any) -> Call:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(CONV_T_SHAPE).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((CONV_T_SHAPE[1], CONV_T_OUT, CONV_T_KERNEL, CONV_T_KERNEL)).astype(np.float32),
                   requires_grad=True)
    b = lib.tensor(np.zeros(CONV_T_OUT, np.float32), requires_grad=True)

    def step() -> None:
        x.grad = w.grad = b.grad = None
        nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1).sum().backward()

    return step


def lenet(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )


def sgd_step(lib: Any, nn: Any, model: Any, x: Any, y: Any) -> Call:
    """zero_grad, forward, cross-entropy, backward, SGD update (the library's own optimizer)."""
    optimizer = lib.optim.SGD(model.parameters(), lr=LEARNING_RATE)

    def step() -> None:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()

    return step


def lenet_step(lib: Any, nn: Any) -> Call:
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((LENET_BATCH, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, LENET_BATCH))
    return sgd_step(lib, nn, lenet(nn), x, y)


def mlp_step(lib: Any, nn: Any, widths: tuple[int, ...], batch: int) -> Call:
    rng = np.random.default_rng(2)
    layers: list[Any] = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    x = lib.tensor(rng.standard_normal((batch, widths[0])).astype(np.float32))
    y = lib.tensor(rng.integers(0, widths[-1], batch))
    return sgd_step(lib, nn, model, x, y)


def _both(ctx: Context, make: Callable[[Any, Any], Call], simple: bool = False) -> dict[str, Factory]:
    """minitorch's cpu backend and PyTorch (NumPy has no autograd); optionally the simple backend too."""
    factories: dict[str, Factory] = {
        MINITORCH: lambda: make(minitorch, minitorch.nn),
        TORCH: lambda: make(ctx.torch, ctx.torch.nn) if ctx.torch else None,
    }
    if simple:
        factories[SIMPLE] = lambda: on_backend(SIMPLE, make(minitorch, minitorch.nn))
    return factories


def layer_cases(ctx: Context) -> list[Case]:
    conv = f"{CONV_SHAPE[0]}x{CONV_SHAPE[1]}x{CONV_SHAPE[2]}x{CONV_SHAPE[3]}, {CONV_OUT} {KERNEL_SIZE}x{KERNEL_SIZE}"
    conv_t = f"{'x'.join(map(str, CONV_T_SHAPE))}, {CONV_T_OUT} {CONV_T_KERNEL}x{CONV_T_KERNEL} stride 2"
    return [
        Case(f"conv2d fwd+bwd {conv}", "layers", _both(ctx, conv_step), rows=[Row(MINITORCH, target=LAYER_TARGET)],
             description="conv2d(x, w, b, padding=1).sum().backward()"),
        Case(f"conv_transpose2d fwd+bwd {conv_t}", "layers", _both(ctx, conv_transpose_step),
             description="conv_transpose2d(x, w, b, stride=2, padding=1).sum().backward()"),
        Case(f"LeNet SGD step, batch {LENET_BATCH}", "layers", _both(ctx, lenet_step),
             rows=[Row(MINITORCH, target=LAYER_TARGET)],
             description="two conv + max-pool stages, three linear layers, 28 x 28 inputs, cross-entropy, SGD"),
    ]


def with_a_busy_core(case: Case, settings: harness.Settings) -> None:
    """The case's usual interleaved timing while another process keeps one core busy (a browser,
    a build, a second notebook), as a laptop often has. Afterwards minitorch's thread count is set
    again, so the cases after this one start with every thread."""
    threads = minitorch.get_num_threads()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        harness.measure_interleaved(case, settings)
    finally:
        busy.kill()
        busy.wait()
        minitorch.set_num_threads(threads)


def mlp_cases(ctx: Context) -> list[Case]:
    big = "-".join(map(str, MLP_WIDTHS))
    small = "-".join(map(str, SMALL_MLP_WIDTHS))
    return [
        Case(f"MLP SGD step {big}, batch {MLP_BATCH}", "training",
             _both(ctx, lambda lib, nn: mlp_step(lib, nn, MLP_WIDTHS, MLP_BATCH)),
             rows=[Row(MINITORCH, target=MLP_TARGET)], budget_s=2.0,
             description="zero_grad, forward, cross-entropy, backward, SGD step; float32"),
        Case(f"MLP SGD step {small}, batch {SMALL_MLP_BATCH}", "training",
             _both(ctx, lambda lib, nn: mlp_step(lib, nn, SMALL_MLP_WIDTHS, SMALL_MLP_BATCH), simple=True),
             rows=[Row(MINITORCH), Row(SIMPLE, "[simple]")], budget_s=2.0,
             description="the same step, small enough for the pure-Python simple backend"),
        Case(f"MLP SGD step {big}, batch {MLP_BATCH}, another process busy", "training",
             _both(ctx, lambda lib, nn: mlp_step(lib, nn, MLP_WIDTHS, MLP_BATCH)), budget_s=2.0,
             runner=with_a_busy_core,
             description="the MLP step while another process spins on one core: threaded kernels wait for "
                         "the scheduler (minitorch's then run on fewer threads, see cpu_thread_governor)"),
    ]


# ---- the course's standard run: one epoch of the training CLI's loop ----


#: the training CLI's choices for the standard run where this minitorch has no training CLI
#: (an older checkout): PyTorch still gets a row to compare with
FALLBACK_OPTIONS = argparse.Namespace(dataset="split", points=50, hidden=100, layers=2, batch_size=10,
                                      optimizer="adam", lr=0.03, momentum=0.9, weight_decay=0.0, seed=0)
TORCH_OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop", "adagrad": "Adagrad"}
#: the split set: class 1 left of 0.2 or right of 0.8 on the unit square, mapped onto [-1, 1]^2
SPLIT_EDGES = (0.2, 0.8)


def course_options(cli_args: tuple[str, ...] = COURSE_ARGS) -> argparse.Namespace:
    """The training CLI's options for ``cli_args`` (its defaults for everything else)."""
    try:
        from minitorch import train
    except ImportError:
        if cli_args != COURSE_ARGS:
            raise NotAvailable("this minitorch has no training CLI") from None
        return FALLBACK_OPTIONS
    parser = argparse.ArgumentParser()
    train.add_arguments(parser)
    return train.resolve(parser, parser.parse_args(list(cli_args)))


def course_data(options: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """The training CLI's data set (features already mapped to [-1, 1]^2) as NumPy arrays."""
    try:
        from minitorch import train
    except ImportError:
        points = np.random.default_rng(options.seed).random((options.points, 2))
        labels = (points[:, 0] < SPLIT_EDGES[0]) | (points[:, 0] > SPLIT_EDGES[1])
        return ((points - 0.5) * 2).astype(np.float32), labels.astype(np.int64)
    try:
        data = train.load_data(options.dataset, options.points, options.seed)
    except ImportError as missing:  # the digits come from scikit-learn, an optional dependency
        raise NotAvailable(str(missing)) from None
    return data.X_train.numpy().astype(np.float32), data.y_train.numpy().astype(np.int64)


def minitorch_epoch(backend: Optional[str], device: str = "cpu", cli_args: tuple[str, ...] = COURSE_ARGS) -> Optional[Call]:
    """One epoch of ``minitorch.train.train_epoch``, set up as the CLI sets it up for ``cli_args``."""
    from minitorch import train
    from minitorch.utils.data import DataLoader, TensorDataset

    if device == CUDA:
        cuda = getattr(minitorch, "cuda", None)
        if cuda is None or not cuda.is_available() or cuda.is_simulator():
            raise NotAvailable("no CUDA GPU here")
    options = course_options(cli_args)
    features, labels = course_data(options)
    with cpu_backend(backend):
        minitorch.manual_seed(options.seed)
        x, y = minitorch.tensor(features).to(device), minitorch.tensor(labels).to(device)
        model = train.build_mlp(features.shape[1], options.hidden, options.layers, int(labels.max()) + 1).to(device)
        optimizer = train.build_optimizer(options.optimizer, model.parameters(), options.lr, options.momentum,
                                          options.weight_decay)
        loader = DataLoader(TensorDataset(x, y), batch_size=options.batch_size, shuffle=True,
                            generator=minitorch.Generator().manual_seed(options.seed))
        loss_fn = minitorch.nn.CrossEntropyLoss()
    return on_backend(backend, lambda: train.train_epoch(model, loader, optimizer, loss_fn))


def torch_epoch(torch: Any, cli_args: tuple[str, ...] = COURSE_ARGS) -> Optional[Call]:
    """The same MLP, optimizer, batches and loop body in PyTorch."""
    if torch is None:
        return None
    options = course_options(cli_args)
    features, labels = course_data(options)
    torch.manual_seed(options.seed)
    layers: list[Any] = []
    width = features.shape[1]
    for _ in range(options.layers):
        layers += [torch.nn.Linear(width, options.hidden), torch.nn.ReLU()]
        width = options.hidden
    model = torch.nn.Sequential(*layers, torch.nn.Linear(width, int(labels.max()) + 1))
    settings: dict[str, Any] = {"lr": options.lr, "weight_decay": options.weight_decay}
    if options.optimizer in ("sgd", "rmsprop"):
        settings["momentum"] = options.momentum
    optimizer = getattr(torch.optim, TORCH_OPTIMIZERS[options.optimizer])(model.parameters(), **settings)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(features), torch.from_numpy(labels))
    loader = torch.utils.data.DataLoader(dataset, batch_size=options.batch_size, shuffle=True)
    loss_fn = torch.nn.CrossEntropyLoss()

    from minitorch.train import train_epoch  # duck-typed: the very same loop runs PyTorch's objects

    def epoch() -> tuple[float, float]:
        return train_epoch(model, loader, optimizer, loss_fn)

    return epoch


COURSE_NAME = "course epoch: 50 pts, hidden 100, batch 10"
COURSE_DESCRIPTION = ("one epoch of minitorch.train.train_epoch with the CLI's model, optimizer and shuffling "
                      "DataLoader (" + " ".join(COURSE_ARGS) + "); PyTorch runs the same loop")
DIGITS_NAME = "digits epoch: 64-128-10, Adam, batch 32"
DIGITS_DESCRIPTION = ("one epoch of minitorch.train.train_epoch on the digits' training split, set up as "
                      "minitorch train " + " ".join(DIGITS_ARGS) + "; PyTorch runs the same loop")
#: an epoch on the pure-Python backend takes seconds: this many, after the two warm-up epochs
SIMPLE_EPOCHS = 3


def course_run_cases(ctx: Context) -> list[Case]:
    """The cpu backend (and cuda on a GPU) in one case; the slow simple backend in its own, fewer repetitions."""
    return [
        Case(COURSE_NAME, "training",
             {MINITORCH: lambda: minitorch_epoch(None), CUDA: lambda: minitorch_epoch(None, CUDA),
              TORCH: lambda: torch_epoch(ctx.torch)},
             rows=[Row(MINITORCH), Row(CUDA, "[cuda]")], budget_s=2.0, description=COURSE_DESCRIPTION),
        Case(f"{COURSE_NAME} [simple]", "training",
             {SIMPLE: lambda: minitorch_epoch(SIMPLE), TORCH: lambda: torch_epoch(ctx.torch)},
             rows=[Row(SIMPLE)], max_repeats=SIMPLE_EPOCHS, description=COURSE_DESCRIPTION + "; simple backend"),
        Case(DIGITS_NAME, "training",
             {MINITORCH: lambda: minitorch_epoch(None, cli_args=DIGITS_ARGS),
              TORCH: lambda: torch_epoch(ctx.torch, DIGITS_ARGS)},
             rows=[Row(MINITORCH, target=DIGITS_TARGET)], budget_s=3.0, description=DIGITS_DESCRIPTION),
    ]


def cases(ctx: Context) -> list[Case]:
    return [*layer_cases(ctx), *mlp_cases(ctx), *course_run_cases(ctx)]
