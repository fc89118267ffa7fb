"""Independent gradient oracle for tensor tests: autograd against central differences.

``gradcheck(fn, *inputs)`` reduces ``fn(*inputs)`` (a tensor or a tuple of them) to a scalar
with a fixed random weight per output element, backpropagates it, and compares each input's ``.grad`` with
the slope measured by nudging that input element by element on NumPy copies. Only the
forward of ``fn`` is trusted by the oracle, so a wrong backward rule cannot hide.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import minitorch


def _values(out: Any) -> np.ndarray:
    """The output of ``fn`` as a float64 NumPy array (a copy, detached)."""
    return np.array(out.detach().numpy(), dtype=np.float64)


def _outputs(out: Any) -> tuple[minitorch.Tensor, ...]:
    """``fn``'s result as a tuple of tensors (one tensor, or the several an op returns)."""
    return tuple(out) if isinstance(out, tuple) else (out,)


def gradcheck(
    fn: Callable[..., Any],
    *inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    seed: int = 0,
) -> None:
    """Assert that autograd's gradient of ``fn`` matches central differences.

    ``inputs`` that are tensors with ``requires_grad`` (float64 leaves) are checked; any
    other argument is passed to ``fn`` unchanged. Raises AssertionError naming the input
    and the worst element on a mismatch.
    """
    checked = [i for i, x in enumerate(inputs) if isinstance(x, minitorch.Tensor) and x.requires_grad]
    assert checked, "gradcheck needs at least one input with requires_grad=True"
    for i in checked:
        assert inputs[i].dtype is minitorch.float64, f"input {i} must be float64, got {inputs[i].dtype}"
        assert inputs[i].is_leaf, f"input {i} must be a leaf tensor"
        inputs[i].grad = None

    outputs = _outputs(fn(*inputs))
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(tuple(out.shape)) for out in outputs]
    sum(((out * minitorch.tensor(w, dtype=minitorch.float64)).sum() for out, w in zip(outputs, weights))).backward()

    base = {i: np.array(inputs[i].detach().numpy(), dtype=np.float64) for i in checked}

    def weighted(i: int, array: np.ndarray) -> float:
        args = list(inputs)
        for j in checked:
            args[j] = minitorch.tensor(array if j == i else base[j], dtype=minitorch.float64)
        with minitorch.no_grad():
            return float(sum(np.sum(w * _values(out)) for out, w in zip(_outputs(fn(*args)), weights)))

    for i in checked:
        numeric = np.zeros_like(base[i])
        for index in np.ndindex(*base[i].shape):
            above, below = base[i].copy(), base[i].copy()
            above[index] += eps
            below[index] -= eps
            numeric[index] = (weighted(i, above) - weighted(i, below)) / (2 * eps)
        grad = inputs[i].grad
        analytic = np.zeros_like(numeric) if grad is None else _values(grad)
        assert analytic.shape == numeric.shape, (
            f"input {i}: .grad has shape {analytic.shape}, input has shape {numeric.shape}"
        )
        if not np.allclose(analytic, numeric, atol=atol, rtol=rtol):
            worst = np.unravel_index(np.argmax(np.abs(analytic - numeric)), numeric.shape)
            raise AssertionError(
                f"input {i}: autograd and central differences disagree; worst at {tuple(worst)}: "
                f"autograd {analytic[worst]!r} vs numeric {numeric[worst]!r}\n"
                f"autograd:\n{analytic}\nnumeric:\n{numeric}"
            )
