"""The packed right operand of the cpu backend (:class:`minitorch.backends.cpu.PackedRight`): one
``b``, packed once by :func:`~minitorch.backends.cpu_matmul_outer.pack_matrix`, many ``a @ b``.

Oracles: NumPy's product in float64, and :func:`~minitorch.backends.cpu.outer_matmul`, which packs
``b`` at every call and must give the same bits (same tiles, same order of the sums).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch.backends import cpu
from minitorch.backends.cpu_matmul_outer import TILE_COLS
from minitorch.tensor_data import TensorData


def matrix(values: np.ndarray, transposed: bool = False, offset: int = 0) -> TensorData:
    """``values`` as a 2-D TensorData: row-major, or over a column-major copy (``transposed``), after ``offset`` spare elements."""
    rows, cols = values.shape
    flat = np.ascontiguousarray(values.T if transposed else values).reshape(-1)
    storage = np.concatenate([np.full(offset, np.nan, values.dtype), flat])
    return TensorData(storage, (rows, cols), (1, rows) if transposed else (cols, 1), offset)


def refuse(*_: TensorData) -> None:
    raise AssertionError("the fallback was called")


SHAPES = [(32, 128, 512), (32, 512, 128), (5, 7, 33), (4, 1, TILE_COLS), (9, 130, 200), (64, 300, 70), (1, 0, 40)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,k,m", SHAPES)
@pytest.mark.parametrize("b_transposed", [False, True])
def test_products_equal_outer_matmul_bit_for_bit_and_numpy(dtype: type, n: int, k: int, m: int, b_transposed: bool) -> None:
    rng = np.random.default_rng(n * 1000 + k + m)
    a_values, b_values = rng.standard_normal((n, k)).astype(dtype), rng.standard_normal((k, m)).astype(dtype)
    a, b = matrix(a_values, offset=3), matrix(b_values, transposed=b_transposed, offset=5)
    packed = cpu.PackedRight(b, refuse)
    for step in range(2):  # the packing serves every call
        out = TensorData(np.full(n * m, np.nan, dtype), (n, m))
        packed(a, b, out)
        expected = TensorData(np.empty(n * m, dtype), (n, m))
        cpu.outer_matmul(a, b, expected)
        assert np.array_equal(out.storage, expected.storage), f"call {step}"
        tolerance = 1e-4 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(out.storage.reshape(n, m), a_values.astype(np.float64) @ b_values,
                                   rtol=tolerance, atol=tolerance * max(k, 1))


def test_strided_left_operand_and_strided_output() -> None:
    """``a`` a transposed view and ``out`` a column of a wider matrix: the kernel follows their strides."""
    rng = np.random.default_rng(1)
    n, k, m = 12, 40, 70
    a_values, b_values = rng.standard_normal((n, k)), rng.standard_normal((k, m))
    a, b = matrix(a_values, transposed=True), matrix(b_values)
    wide = np.full((n, m + 3), 7.0)
    out = TensorData(wide.reshape(-1), (n, m), (m + 3, 1), 2)
    cpu.PackedRight(b, refuse)(a, b, out)
    np.testing.assert_allclose(wide[:, 2 : m + 2], a_values @ b_values, rtol=1e-12, atol=1e-12)
    assert (wide[:, :2] == 7.0).all() and (wide[:, m + 2 :] == 7.0).all()  # nothing written outside the view


def test_threaded_and_serial_kernels_agree() -> None:
    """A product large enough for threads and one too small for them, each against NumPy."""
    rng = np.random.default_rng(2)
    for n, k, m in [(256, 256, 256), (3, 4, 40)]:
        assert cpu.kernels.threaded(n * k * m) == (n == 256)
        a_values, b_values = rng.standard_normal((n, k)), rng.standard_normal((k, m))
        a, b = matrix(a_values), matrix(b_values)
        out = TensorData(np.empty(n * m), (n, m))
        cpu.PackedRight(b, refuse)(a, b, out)
        np.testing.assert_allclose(out.storage.reshape(n, m), a_values @ b_values, rtol=1e-12, atol=1e-11)


CallRecord = list[tuple[TensorData, TensorData, TensorData]]


def recording(calls: CallRecord) -> Callable[[TensorData, TensorData, TensorData], None]:
    def fallback(a: TensorData, b: TensorData, out: TensorData) -> None:
        calls.append((a, b, out))
        cpu.CpuBackend().matmul(a, b, out)

    return fallback


@pytest.mark.parametrize("case", ["another_b", "integers", "mixed_dtypes", "narrow", "batched", "wrong_out_shape"])
def test_what_the_packed_kernel_does_not_take_goes_to_the_fallback(case: str) -> None:
    rng = np.random.default_rng(3)
    dtype = np.int64 if case == "integers" else np.float64
    m = 8 if case == "narrow" else 40
    b_values = (rng.integers(-3, 4, (6, m)) if case == "integers" else rng.standard_normal((6, m))).astype(dtype)
    a_values = rng.standard_normal((5, 6)).astype(np.float32 if case == "mixed_dtypes" else dtype)
    b = matrix(b_values)
    calls: CallRecord = []
    packed = cpu.PackedRight(b, recording(calls))
    other = matrix(b_values.copy()) if case == "another_b" else b
    a = matrix(a_values)
    out_dtype = np.float32 if case == "mixed_dtypes" else dtype
    if case == "batched":
        a = TensorData(a.storage, (1, 5, 6))
        out = TensorData(np.empty(5 * m, out_dtype), (1, 5, m))
    elif case == "wrong_out_shape":
        out = TensorData(np.empty(5 * m, out_dtype), (m, 5))
        unchecked = cpu.PackedRight(b, lambda *operands: calls.append(operands))
        unchecked(a, other, out)
        assert len(calls) == 1  # the fallback (the dispatch layer's checks), never the unchecked kernel
        return
    else:
        out = TensorData(np.empty(5 * m, out_dtype), (5, m))
    if case == "mixed_dtypes":
        out = TensorData(np.empty(5 * m, np.float64), (5, m))
    packed(a, other, out)
    assert len(calls) == 1
    np.testing.assert_allclose(out.storage.reshape(5, m), a_values.astype(np.float64) @ b_values, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layer", ["LSTM", "GRU"])
def test_recurrent_layers_take_the_packed_products(layer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recurrent layer's forward and backward multiply by the packed weight at every step, and their
    results are those of the same layer with every product through the backend's ``matmul``."""
    calls = {"packed": 0}
    original = cpu.PackedRight.__call__

    def counted(self: cpu.PackedRight, a: TensorData, b: TensorData, out: TensorData) -> None:
        if b is self.b and self.packed is not None:
            calls["packed"] += 1
        original(self, a, b, out)

    def run() -> list[np.ndarray]:
        minitorch.manual_seed(0)
        model = getattr(minitorch.nn, layer)(6, 40, dtype=minitorch.float64)
        x = minitorch.tensor(np.random.default_rng(4).standard_normal((7, 3, 6)), requires_grad=True)
        out, hidden = model(x)
        final = hidden[0] if isinstance(hidden, tuple) else hidden
        (out.sum() + (final * final).sum()).backward()
        return [out.detach().numpy().copy(), x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in model.parameters()]

    monkeypatch.setattr(cpu.PackedRight, "__call__", counted)
    packed_results = run()
    assert calls["packed"] == 2 * 7  # one product per step forward, one per step backward

    class Unpacked:
        def __init__(self, b: TensorData, fallback: Callable[[TensorData, TensorData, TensorData], None]) -> None:
            self.fallback = fallback

        def __call__(self, a: TensorData, b: TensorData, out: TensorData) -> None:
            self.fallback(a, b, out)

    monkeypatch.setattr(cpu, "PackedRight", Unpacked)
    for got, expected in zip(packed_results, run()):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
