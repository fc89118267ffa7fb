"""GELU in float64: the exact (erf) form to float64 accuracy, both forms as torch's, forward and backward.

torch evaluates :math:`\\tfrac12 x (1 + \\mathrm{erf}(x/\\sqrt2))`, whose ``1 + erf`` cancels for
negative :math:`x` (an absolute error near :math:`|x|\\,\\varepsilon`, so torch returns 0 below
about -8.3); minitorch computes the lower tail without cancellation. So the comparison with
torch allows that absolute error on top of 1e-12 relative, and the exact form is also checked
against 40-digit values at 1e-13 relative everywhere.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import pytest

import minitorch

RTOL = 1e-12
#: the rounding of torch's own ``1 + erf``/``1 + tanh`` form, times |x|
CANCELLATION = 8 * np.finfo(np.float64).eps
POINTS = np.concatenate([np.linspace(-30.0, 30.0, 1201), np.linspace(-1e-3, 1e-3, 21), [-37.5, 0.0, 5e-9]])


def _ours(x: np.ndarray, approximate: str) -> tuple[np.ndarray, np.ndarray]:
    t = minitorch.tensor(x.tolist(), dtype=minitorch.float64, requires_grad=True)
    minitorch.nn.functional.gelu(t, approximate=approximate).sum().backward()
    y = minitorch.nn.functional.gelu(t.detach(), approximate=approximate)
    return y.numpy(), t.grad.numpy()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch_in_float64(backend: str, torch_ref: Any, approximate: str) -> None:
    t = torch_ref.tensor(POINTS, dtype=torch_ref.float64, requires_grad=True)
    torch_ref.nn.functional.gelu(t, approximate=approximate).sum().backward()
    expected = torch_ref.nn.functional.gelu(t.detach(), approximate=approximate).numpy()
    value, grad = _ours(POINTS, approximate)
    slack = CANCELLATION * np.maximum(np.abs(POINTS), 1.0)
    assert np.all(np.abs(value - expected) <= RTOL * np.abs(expected) + slack), "value"
    assert np.all(np.abs(grad - t.grad.numpy()) <= RTOL * np.abs(t.grad.numpy()) + slack), "gradient"
    # away from the cancelling tail the agreement is 1e-12 relative with no slack
    body = POINTS > -2.0
    np.testing.assert_allclose(value[body], expected[body], rtol=RTOL, atol=1e-300)


def test_exact_gelu_and_its_slope_to_float64_accuracy() -> None:
    mpmath.mp.dps = 40
    value, grad = _ours(POINTS, "none")
    for x, y, g in zip(POINTS, value, grad):
        cdf = mpmath.ncdf(mpmath.mpf(float(x)))
        expected_value = float(x * cdf)
        expected_slope = float(cdf + x * mpmath.npdf(mpmath.mpf(float(x))))
        assert abs(y - expected_value) <= RTOL * abs(expected_value), (x, y, expected_value)
        assert abs(g - expected_slope) <= RTOL * abs(expected_slope) + 1e-300, (x, g, expected_slope)
