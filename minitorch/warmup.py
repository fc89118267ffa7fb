"""``minitorch warmup``: compile the kernels that common models use, once, into Numba's cache.

The CPU backend compiles each kernel the first time a program runs it and keeps the machine
code in Numba's on-disk cache; every later process loads it in milliseconds. This command
runs, on small and on large tensors (the serial and the threaded kernels), the steps of the
models people start with, so that the first cell of a notebook or the first epoch of a script
does not wait for the compiler:

* an MLP (``Linear``, ``ReLU``, ``Tanh``, ``Sigmoid``, ``Dropout``) with cross-entropy and
  MSE losses, trained by SGD with momentum and by Adam;
* a small convolutional net (``Conv2d``, ``MaxPool2d``, ``BatchNorm2d``, ``Flatten``);
* the elementwise functions and reductions such models call (``exp``, ``log``, ``softmax``,
  ``mean``, ``max``, ``argmax``, comparisons), and cross-entropy over many classes.
* the optimizers' updates of a parameter large enough for their threaded kernels;
* the probe of busy cores that the thread governor sends after a long call (an empty threaded kernel).

Each workload runs in float32, the default dtype. ``make`` runs the command after setting up
the environment; ``pip install`` users run it once by hand. A second run finds everything in
the cache and takes a few seconds. The cache is the one Numba uses (``NUMBA_CACHE_DIR``, or
``__pycache__`` folders next to the sources).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import time
from typing import Callable, Optional

import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.backends.cpu_thread_governor import fastest_ping
from minitorch.tensor import Tensor

#: batch sizes: the first keeps every kernel serial, the second makes the big ones threaded
#: (above the kernels' ``PARALLEL_MIN_WORK`` of 65536 elements)
SMALL_BATCH = 8
LARGE_BATCH = 512
BATCHES = (SMALL_BATCH, LARGE_BATCH)
#: the MLP's widths (the digits' 64 pixels, 10 classes)
MLP_WIDTHS = (64, 128, 10)
#: the convnet's input: one channel of 8 x 8, as the digits
IMAGE_SIDE = 8
CONV_CHANNELS = 8
CLASSES = 10


def _data(batch: int, features: tuple[int, ...], seed: int) -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(seed)
    x = minitorch.tensor(rng.standard_normal((batch, *features)).astype(np.float32))
    y = minitorch.tensor(rng.integers(0, CLASSES, batch))
    return x, y


def _train_steps(model: nn.Module, x: Tensor, y: Tensor) -> None:
    """Two steps each of SGD with momentum and of Adam, with cross-entropy, then an MSE step."""
    for optimizer in (optim.SGD(model.parameters(), lr=0.01, momentum=0.9), optim.Adam(model.parameters(), lr=1e-3)):
        for _ in range(2):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
    model.zero_grad()
    out = model(x)
    nn.functional.mse_loss(out, minitorch.zeros_like(out)).backward()
    model.eval()
    with minitorch.no_grad():
        (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()


def mlp(batch: int) -> None:
    """An MLP's training and evaluation steps."""
    inputs, hidden, classes = MLP_WIDTHS
    model = nn.Sequential(
        nn.Linear(inputs, hidden), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(hidden, hidden), nn.Tanh(),
        nn.Linear(hidden, hidden), nn.Sigmoid(),
        nn.Linear(hidden, classes),
    )
    _train_steps(model, *_data(batch, (inputs,), seed=batch))


def convnet(batch: int) -> None:
    """A small convolutional net's training and evaluation steps."""
    # two convolutions: the second one's input needs a gradient, which the first one's never does
    model = nn.Sequential(
        nn.Conv2d(1, CONV_CHANNELS, 3, padding=1), nn.BatchNorm2d(CONV_CHANNELS), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(CONV_CHANNELS, CONV_CHANNELS, 3, padding=1), nn.ReLU(),
        nn.Flatten(), nn.Linear(CONV_CHANNELS * (IMAGE_SIDE // 2) ** 2, CLASSES),
    )
    _train_steps(model, *_data(batch, (1, IMAGE_SIDE, IMAGE_SIDE), seed=batch + 1))


def functions(batch: int) -> None:
    """The elementwise functions and reductions that models and their metrics call."""
    x, _ = _data(batch, (MLP_WIDTHS[1],), seed=batch + 2)
    x.requires_grad_(True)
    y = x.exp().log1p() + x.abs().sqrt() * x.sin() - x.cos() / (x.pow(2) + 1)
    y = y + x.softmax(dim=1) + x.log_softmax(dim=1) + x.clamp(-1, 1) + minitorch.where(x > 0, x, -x)
    loss = nn.functional.cross_entropy(x, x.argmax(dim=1))  # as wide as the threaded kernels need at LARGE_BATCH
    (y.sum() + y.mean() + y.max() + y.var() + (x - 1).neg().maximum(x).min() + loss).backward()
    (x.argmax(dim=1).sum() + (x >= 0).sum() + (x < 0).any()).item()


def optimizers(batch: int) -> None:
    """The updates of SGD without and with momentum and of Adam on a parameter of ``batch`` rows of the MLP's
    hidden width: large enough at ``LARGE_BATCH`` for their threaded kernels (a model's own
    parameters are the same size at any batch)."""
    weight = minitorch.zeros(batch, MLP_WIDTHS[1], requires_grad=True)
    for optimizer in (optim.SGD([weight], lr=0.01), optim.SGD([weight], lr=0.01, momentum=0.9),
                      optim.Adam([weight], lr=1e-3)):
        for _ in range(2):
            optimizer.zero_grad()
            (weight * weight).sum().backward()
            optimizer.step()


def thread_probe(batch: int) -> None:
    """The thread governor's probe (:func:`.cpu_thread_governor.fastest_ping`), with the threaded kernels."""
    if batch >= LARGE_BATCH:
        fastest_ping()


WORKLOADS: dict[str, Callable[[int], None]] = {
    "mlp": mlp, "convnet": convnet, "functions": functions, "optimizers": optimizers, "thread_probe": thread_probe,
}


def warm_batch(batch: int) -> None:
    """Every workload at one batch size."""
    for workload in WORKLOADS.values():
        minitorch.manual_seed(0)
        workload(batch)


def warm(progress: bool = True, jobs: Optional[int] = None) -> float:
    """Run every workload at both batch sizes; the seconds it took.

    The two batch sizes compile different kernels (serial and threaded), so with ``jobs`` of 2
    or more (default: the number of CPUs) they run in two processes at once. Numba writes
    each cache file by an atomic rename; what two processes may both write is the index of a
    helper that both compile, and losing one of its entries only means compiling it again
    later, since the kernels that call it are cached with its code inside.
    """
    from tqdm.auto import tqdm

    jobs = min(len(BATCHES), jobs or os.cpu_count() or 1)
    start = time.perf_counter()
    with tqdm(total=len(BATCHES), desc="compiling kernels", unit="batch size", disable=not progress) as bar:
        if jobs == 1:
            for batch in BATCHES:
                warm_batch(batch)
                bar.update()
        else:
            context = multiprocessing.get_context("spawn")  # a fresh interpreter: no threads to fork
            with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
                for done in concurrent.futures.as_completed([pool.submit(warm_batch, batch) for batch in BATCHES]):
                    done.result()
                    bar.update()
    return time.perf_counter() - start


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress bar, only the closing line")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="processes compiling at once (default: the number of CPUs, at most 2)")


def run(args: argparse.Namespace) -> None:
    if args.jobs is not None and args.jobs < 1:
        raise SystemExit(f"minitorch warmup: --jobs must be at least 1, got {args.jobs}")
    seconds = warm(progress=not args.quiet, jobs=args.jobs)
    print(f"minitorch warmup: the common kernels are compiled and cached ({seconds:.1f} s)")
