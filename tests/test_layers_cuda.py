"""The layers on device 'cuda' (Numba's CUDA simulator in CI, a GPU where there is one): the
window, gather and scatter primitives of the cuda backend give the CPU's outputs and
gradients for convolution, pooling, embedding and cross-entropy. Tiny shapes: the
simulator runs one Python thread per GPU thread."""

from __future__ import annotations

import numpy as np
import pytest
from layer_helpers import assert_close

import minitorch
import minitorch.nn.functional as F

pytestmark = pytest.mark.skipif(not minitorch.cuda.is_available(), reason="no CUDA device or simulator")

CASES = {
    "conv2d": lambda x, w: F.conv2d(x, w.view(3, 2, 2, 2), padding=1, stride=2),
    "max_pool2d": lambda x, w: F.max_pool2d(x, 3, 2, 1) * w.sum(),
    "embedding": lambda x, w: F.embedding(minitorch.tensor([[2, 0], [2, 1]], device=x.device), w.view(3, 8)) * x.sum(),
    "cross_entropy": lambda x, w: F.cross_entropy(w.view(3, 8) * x.mean(), minitorch.tensor([1, 0, 7], device=x.device), label_smoothing=0.1),
}


@pytest.mark.task("5.3")
@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_on_cuda_matches_cpu(name: str) -> None:
    rng = np.random.default_rng(0)
    x_np, w_np = rng.standard_normal((1, 2, 4, 4)), rng.standard_normal(24)
    results = []
    for device in ("cpu", "cuda"):
        x = minitorch.tensor(x_np, dtype=minitorch.float64, device=device, requires_grad=True)
        w = minitorch.tensor(w_np, dtype=minitorch.float64, device=device, requires_grad=True)
        out = CASES[name](x, w)
        assert out.device.type == device
        out.sum().backward()
        results.append((out.cpu(), x.grad.cpu(), w.grad.cpu()))
    for mine, ref, what in zip(results[1], results[0], ("output", "input gradient", "weight gradient")):
        assert_close(mine, ref, atol=1e-12, rtol=1e-10, what=what)
