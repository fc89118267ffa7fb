"""Layer benchmarks (step 5): conv2d forward+backward and a LeNet-style training step,
minitorch (Numba CPU backend) against PyTorch CPU in the same run, float32.

    .venv/bin/python bench/bench_layers.py [--repeats N]

Each case is warmed up (Numba compiles or loads its kernels, PyTorch starts its threads),
then timed as the median of ``--repeats`` interleaved samples; PyTorch gets the same number
of threads as Numba. The last column is minitorch's time over PyTorch's (lower is better).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from typing import Any, Callable

import numpy as np

THREADS = int(os.environ.get("NUMBA_NUM_THREADS", os.cpu_count() or 1))
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(THREADS))

import minitorch  # noqa: E402
import minitorch.nn as mnn  # noqa: E402

WARMUP = 3
CONV_SHAPE = (32, 3, 32, 32)  # batch 32, 3 channels, 32 x 32
CONV_OUT, KERNEL = 16, 3
LENET_BATCH = 64


def conv_case(lib: Any, nn: Any) -> Callable[[], None]:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(CONV_SHAPE).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((CONV_OUT, CONV_SHAPE[1], KERNEL, KERNEL)).astype(np.float32), requires_grad=True)
    b = lib.tensor(np.zeros(CONV_OUT, np.float32), requires_grad=True)

    def step() -> None:
        x.grad = w.grad = b.grad = None
        nn.functional.conv2d(x, w, b, padding=1).sum().backward()

    return step


def lenet(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )


def lenet_case(lib: Any, nn: Any) -> Callable[[], None]:
    rng = np.random.default_rng(1)
    model = lenet(nn)
    x = lib.tensor(rng.standard_normal((LENET_BATCH, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, LENET_BATCH))
    learning_rate = 0.01

    def step() -> None:
        model.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        with lib.no_grad():
            for p in model.parameters():
                p.sub_(p.grad * learning_rate)

    return step


def timed(fn: Callable[[], None]) -> float:
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(THREADS)
    cases = {
        f"conv2d fwd+bwd {CONV_SHAPE}, {CONV_SHAPE[1]}->{CONV_OUT}, {KERNEL}x{KERNEL}": conv_case,
        f"LeNet training step, batch {LENET_BATCH}": lenet_case,
    }
    print(f"threads: {THREADS}; median of {args.repeats} (ms)")
    print(f"{'case':<52} {'minitorch':>10} {'pytorch':>10} {'ratio':>7}")
    for name, make in cases.items():
        runs = {"minitorch": make(minitorch, mnn)}
        if torch is not None:
            runs["pytorch"] = make(torch, torch.nn)
        samples: dict[str, list[float]] = {k: [] for k in runs}
        for fn in runs.values():
            for _ in range(WARMUP):
                fn()
        for _ in range(args.repeats):
            for key, fn in runs.items():
                samples[key].append(timed(fn))
        ours = statistics.median(samples["minitorch"]) * 1e3
        if torch is None:
            print(f"{name:<52} {ours:>10.1f} {'n/a':>10} {'n/a':>7}")
            continue
        theirs = statistics.median(samples["pytorch"]) * 1e3
        print(f"{name:<52} {ours:>10.1f} {theirs:>10.1f} {ours / theirs:>7.1f}")


if __name__ == "__main__":
    main()
