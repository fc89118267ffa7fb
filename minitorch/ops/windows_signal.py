r"""The window functions of signal processing: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window`` and ``kaiser_window``, as PyTorch's.

Each is a fixed curve over :math:`n = 0, \dots, N-1` (:math:`N` the window length), symmetric about
its middle. ``periodic=True`` (the default, what an STFT wants) computes the symmetric window of
length :math:`N + 1` and drops its last point. Values are computed in float64 with NumPy and
stored in the requested floating dtype (default: the default dtype); a window of length 1 is
``[1.]``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..creation import tensor as make_tensor
from ..device import DeviceLike
from ..tensor import Tensor

Curve = Callable[[np.ndarray, int], np.ndarray]  # (n, N) -> w[n] of the symmetric window of length N


def _window(name: str, window_length: int, periodic: bool, curve: Curve, dtype: Any, device: DeviceLike,
            requires_grad: bool, layout: Any) -> Tensor:
    kind = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    if not kind.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {kind}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        length = window_length + 1 if periodic else window_length
        values = curve(np.arange(length, dtype=np.float64), length)[:window_length]
    return make_tensor(values, dtype=kind, device=device, requires_grad=requires_grad)


def _cosine_sum(*coefficients: float) -> Curve:
    r""":math:`\sum_k (-1)^k a_k \cos(2\pi k n / (N-1))`: Hann, Hamming and Blackman are of this form."""
    def curve(n: np.ndarray, length: int) -> np.ndarray:
        phase = 2 * np.pi * n / (length - 1)
        return sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(coefficients))
    return curve


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    r""":math:`w[n] = \tfrac12 - \tfrac12 \cos\big(2\pi n / (N-1)\big)`."""
    return _window("hann_window", window_length, periodic, _cosine_sum(0.5, 0.5), dtype, device, requires_grad,
                   layout)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None, layout: Any = None, device: DeviceLike = None,
                   requires_grad: bool = False) -> Tensor:
    r""":math:`w[n] = \alpha - \beta \cos\big(2\pi n / (N-1)\big)`."""
    return _window("hamming_window", window_length, periodic, _cosine_sum(alpha, beta), dtype, device,
                   requires_grad, layout)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    r""":math:`w[n] = 0.42 - 0.5 \cos\big(2\pi n / (N-1)\big) + 0.08 \cos\big(4\pi n / (N-1)\big)`."""
    return _window("blackman_window", window_length, periodic, _cosine_sum(0.42, 0.5, 0.08), dtype, device,
                   requires_grad, layout)


def _triangle(n: np.ndarray, length: int) -> np.ndarray:
    return 1 - np.abs(2 * n / (length - 1) - 1)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    r"""The triangle :math:`w[n] = 1 - \big|2n / (N-1) - 1\big|`."""
    return _window("bartlett_window", window_length, periodic, _triangle, dtype, device, requires_grad, layout)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
                  layout: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    r""":math:`w[n] = I_0\Big(\beta \sqrt{1 - \big(2n/(N-1) - 1\big)^2}\Big) / I_0(\beta)`, with :math:`I_0`
    the modified Bessel function of order zero."""
    def curve(n: np.ndarray, length: int) -> np.ndarray:
        ratio = 2 * n / (length - 1) - 1
        return np.i0(beta * np.sqrt(np.clip(1 - ratio ** 2, 0.0, None))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, curve, dtype, device, requires_grad, layout)


FUNCTIONS = {function.__name__: function for function in (
    bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window,
)}
