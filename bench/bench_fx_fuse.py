"""Conv2d+BatchNorm2d fusion with ``minitorch.fx`` (eval mode): time before and after.

    python bench/bench_fx_fuse.py [--repeats N]
"""

from __future__ import annotations

import argparse
import time

import minitorch
import minitorch.nn as nn
from minitorch.fx.passes.fuse_conv_bn import fuse

CHANNELS = 8
IMAGE = 16
BATCH = 8


def _best_seconds(fn: object, x: minitorch.Tensor, repeats: int) -> float:
    fn(x)  # warm-up (kernel compilation)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=20)
    repeats = parser.parse_args().repeats
    layers: list[nn.Module] = []
    for _ in range(3):
        layers += [nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1), nn.BatchNorm2d(CHANNELS), nn.ReLU()]
    model = nn.Sequential(*layers).eval()
    fused = fuse(model)
    x = minitorch.randn(BATCH, CHANNELS, IMAGE, IMAGE)
    with minitorch.no_grad():
        error = float((fused(x) - model(x)).abs().max().item())
        before = _best_seconds(model, x, repeats)
        after = _best_seconds(fused, x, repeats)
    print(f"unfused {before * 1e3:.2f} ms  fused {after * 1e3:.2f} ms  speed-up {before / after:.2f}x  max |diff| {error:.1e}")


if __name__ == "__main__":
    main()
