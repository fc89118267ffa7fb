"""The int8 matrix product of dynamic quantization (course task 11.3) against NumPy's int64
product, and the dynamic quantized Linear built on it against the formula computed in float64
from its integers."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.backends.cpu_int8 import INT8_MAX_DEPTH, int8_matmul
from minitorch.quantized.qparams import choose_qparams

pytestmark = pytest.mark.task("11.3")

RNG = np.random.default_rng(113)


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (3, 5, 7), (0, 4, 3), (4, 0, 3), (33, 130, 17), (64, 256, 96)])
def test_int8_matmul_equals_the_int64_product(m: int, k: int, n: int) -> None:
    a = RNG.integers(0, 256, (m, k)).astype(np.uint8)
    b = RNG.integers(-128, 128, (n, k)).astype(np.int8)
    out = int8_matmul(a, b)
    assert out.dtype == np.int32 and out.shape == (m, n)
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64).T)


def test_int8_matmul_sums_in_int32_without_wrapping() -> None:
    # 255 * -128 * 1000 = -32,640,000: far beyond int16, and every product is the extreme one
    a = np.full((2, 1000), 255, np.uint8)
    b = np.full((3, 1000), -128, np.int8)
    assert (int8_matmul(a, b) == 255 * -128 * 1000).all()
    b[1] = 127
    np.testing.assert_array_equal(int8_matmul(a, b)[:, 1], [255 * 127 * 1000] * 2)


def test_int8_matmul_refuses_what_it_cannot_compute() -> None:
    a = np.zeros((2, 10), np.uint8)
    with pytest.raises(TypeError, match="uint8 by int8, got int8 and int8"):
        int8_matmul(a.astype(np.int8), a.astype(np.int8))
    with pytest.raises(ValueError, match=r"\(2, 10\) and \(3, 9\)"):
        int8_matmul(a, np.zeros((3, 9), np.int8))
    with pytest.raises(ValueError, match="overflow int32"):
        int8_matmul(np.zeros((1, INT8_MAX_DEPTH + 1), np.uint8), np.zeros((1, INT8_MAX_DEPTH + 1), np.int8))


@pytest.mark.parametrize("per_channel", [False, True])
def test_dynamic_linear_is_the_integer_formula(per_channel: bool) -> None:
    minitorch.manual_seed(11)
    linear = nn.Linear(20, 6)
    spec = {nn.Linear: minitorch.ao.quantization.per_channel_dynamic_qconfig} if per_channel else {nn.Linear}
    quantized = minitorch.ao.quantization.quantize_dynamic(nn.Sequential(linear), spec)[0]
    x = RNG.standard_normal((5, 20)).astype(np.float32)
    weight = quantized.weight()
    w_int = weight.int_repr().numpy().astype(np.float64)
    w_scale = weight.q_per_channel_scales().numpy() if per_channel else weight.q_scale()
    scale, zero_point = choose_qparams(float(x.min()), float(x.max()), 0, 255, reduce_range=True)
    x_int = np.clip(np.rint(x / scale) + zero_point, 0, 255)
    expected = scale * w_scale * ((x_int - zero_point) @ w_int.T) + linear.bias.detach().numpy()
    out = quantized(minitorch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # int8 keeps the float layer's outputs to a few hundredths here
    np.testing.assert_allclose(out, linear(minitorch.from_numpy(x)).detach().numpy(), atol=0.05)
