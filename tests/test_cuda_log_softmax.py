"""The cuda backend's log-softmax in one launch (``backends/cuda_log_softmax.py``).

Oracles: the same rows through the primitives (:func:`log_softmax_by_primitives`: the same
folds and roundings, so the same bits, NaN where NaN), and PyTorch's cross-entropy on the CPU.
Run on the simulator with small launches: rows beyond the grid, rows longer than a block.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.backends import cuda as cuda_backend
from minitorch.backends.base import log_softmax_by_primitives
from minitorch.tensor_data import TensorData

pytestmark = pytest.mark.usefixtures("small_cuda")

DTYPES = [np.float32, np.float64]


def device(values: np.ndarray) -> minitorch.Tensor:
    return minitorch.tensor(values, device="cuda")


def both_ways(a: TensorData) -> tuple[np.ndarray, np.ndarray]:
    """``a``'s log-softmax by the fused kernel and by the primitives, as host arrays."""
    backend = cuda_backend.CudaBackend()
    outs = []
    for run in (backend.log_softmax, lambda x, out: log_softmax_by_primitives(backend, x, out)):
        out = TensorData(backend.empty(a.size, minitorch.dtypes.from_numpy_dtype(a.storage.dtype)), a.shape)
        run(a, out)
        outs.append(out.storage.copy_to_host().reshape(a.shape))
    return outs[0], outs[1]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (7, 4), (4, 17), (40, 9)], ids=str)
def test_the_fused_rows_are_the_primitives_bit_for_bit(dtype: Any, shape: tuple[int, int]) -> None:
    # small_cuda: 3 blocks (rows beyond them loop), 4 threads (a row of 17 is folded 5 deep)
    rng = np.random.default_rng(shape[1])
    values = (rng.standard_normal(shape) * 30).astype(dtype)
    fused, composed = both_ways(device(values)._data)
    np.testing.assert_array_equal(fused, composed)
    wide = values.astype(np.float64) - values.max(1, keepdims=True)
    np.testing.assert_allclose(fused, wide - np.log(np.exp(wide).sum(1, keepdims=True)), rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:.*encountered in (scalar|cast):RuntimeWarning")  # the simulator's NumPy
def test_views_and_special_values_too() -> None:
    values = np.array([[-np.inf, 0.0, 0.0, 1.0, 2.0], [np.nan, 1.0, 2.0, 0.0, 0.0], [np.inf, 0.0, 1.0, 2.0, 3.0],
                       [-np.inf] * 5, [3.0] * 5, [1e30, -1e30, 0.0, 5.0, 1e30]])
    transposed = device(np.ascontiguousarray(values.T)).T  # a non-contiguous view
    offset = device(np.concatenate([np.zeros((2, 5)), values]))[2:]
    for view in (transposed, offset):
        fused, composed = both_ways(view._data)
        np.testing.assert_array_equal(fused, composed)
        assert fused[0, 0] == -np.inf and np.isnan(fused[1:4]).all()
        np.testing.assert_allclose(fused[4], np.full(5, -np.log(5.0)), rtol=1e-15)


def test_one_launch_per_log_softmax(monkeypatch: pytest.MonkeyPatch) -> None:
    launched: list[Any] = []
    real = cuda_backend.launch
    monkeypatch.setattr(cuda_backend, "launch", lambda kernel, *rest: (launched.append(kernel), real(kernel, *rest))[1])
    x = device(np.arange(12.0).reshape(3, 4))
    out = minitorch.dispatch.log_softmax_op(x)
    assert len(launched) == 1 and out.device.type == "cuda"
    row = np.arange(4.0) - np.log(np.exp(np.arange(4.0)).sum())
    np.testing.assert_allclose(out.cpu().numpy(), np.tile(row, (3, 1)), rtol=1e-14)


def test_cross_entropy_on_cuda_matches_torch(torch_ref: Any) -> None:
    rng = np.random.default_rng(1)
    logits, target = rng.standard_normal((9, 6)), rng.integers(0, 6, 9)
    x = minitorch.tensor(logits, device="cuda", requires_grad=True)
    loss = minitorch.nn.functional.cross_entropy(x, minitorch.tensor(target, device="cuda"))
    loss.backward()
    tx = torch_ref.tensor(logits, requires_grad=True)
    expected = torch_ref.nn.functional.cross_entropy(tx, torch_ref.tensor(target))
    expected.backward()
    np.testing.assert_allclose(loss.item(), expected.item(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-14)
