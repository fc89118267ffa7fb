"""``cat`` and ``stack`` against PyTorch: values, dtypes, gradients and ``grad_fn`` names, on the
cpu backend (one NumPy call joins all the parts) and on a backend without that kernel (a copy
per part), for any dimension, non-contiguous parts and many small parts (a batch of samples).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch
from minitorch.backends.base import ConcatKernels, offers
from minitorch.dispatch import backend_of

BACKENDS = ["cpu", "simple"]


def _parts(rng: np.random.Generator, shape: tuple[int, ...], dim: int, count: int, lengths: bool) -> list[np.ndarray]:
    """``count`` float64 arrays of ``shape``, their length along ``dim`` varied where ``lengths``."""
    arrays = []
    for k in range(count):
        part_shape = list(shape)
        if lengths:
            part_shape[dim] = (k % 3) + (0 if k else 1)  # one part of length 0 among them
        arrays.append(rng.standard_normal(part_shape))
    return arrays


def _join(lib: Any, op: str, arrays: list[np.ndarray], dim: int, transposed: bool) -> tuple[Any, list[Any]]:
    """``lib.cat``/``lib.stack`` of leaves made from ``arrays`` (each seen through a double
    transpose, a non-contiguous view, where ``transposed``) and the leaves."""
    leaves = [lib.tensor(a.T.copy() if transposed else a, requires_grad=True) for a in arrays]
    inputs = [leaf.t() if transposed else leaf for leaf in leaves] if transposed else leaves
    return getattr(lib, op)(inputs, dim), leaves


@settings(max_examples=30, deadline=None)
@given(ndim=st.integers(1, 3), count=st.integers(1, 5), data=st.data())
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_values_and_gradients_match_torch(torch_ref: Any, backend: str, op: str, ndim: int, count: int,
                                          data: st.DataObject) -> None:
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    dim = data.draw(st.integers(-(ndim + (op == "stack")), ndim - 1 + (op == "stack")))
    transposed = ndim == 2 and data.draw(st.booleans())
    rng = np.random.default_rng(count)
    arrays = _parts(rng, shape, dim % ndim, count, lengths=op == "cat" and not transposed)
    with minitorch.backends.use(backend):
        out, leaves = _join(minitorch, op, arrays, dim, transposed)
        weights = rng.standard_normal(tuple(out.shape))
        (out * minitorch.tensor(weights)).sum().backward()
    expected, torch_leaves = _join(torch_ref, op, arrays, dim, transposed)
    (expected * torch_ref.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), expected.detach().numpy())
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
    for leaf, torch_leaf in zip(leaves, torch_leaves, strict=True):
        np.testing.assert_array_equal(leaf.grad.numpy(), torch_leaf.grad.numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_batch_of_many_small_samples_is_stacked_in_order(torch_ref: Any, backend: str) -> None:
    rng = np.random.default_rng(0)
    samples = [rng.standard_normal((1, 5, 5)).astype(np.float32) for _ in range(64)]
    with minitorch.backends.use(backend):
        got = minitorch.stack([minitorch.tensor(s) for s in samples]).numpy()
    np.testing.assert_array_equal(got, torch_ref.stack([torch_ref.tensor(s) for s in samples]).numpy())


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_mixed_dtypes_promote_as_in_torch(torch_ref: Any, op: str) -> None:
    values = [np.array([1, 2]), np.array([0.5, 1.5], np.float32), np.array([True, False])]
    for picked in ([0, 1], [2, 0], [2, 2], [0, 2, 1]):
        got = getattr(minitorch, op)([minitorch.tensor(values[k]) for k in picked])
        expected = getattr(torch_ref, op)([torch_ref.tensor(values[k]) for k in picked])
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_zero_dimensional_tensors_stack_into_a_vector(torch_ref: Any) -> None:
    got = minitorch.stack([minitorch.tensor(1.5), minitorch.tensor(-2.0)])
    expected = torch_ref.stack([torch_ref.tensor(1.5), torch_ref.tensor(-2.0)])
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_the_result_owns_its_memory(torch_ref: Any) -> None:
    a, b = minitorch.zeros(2, 3), minitorch.ones(2, 3)
    joined, stacked = minitorch.cat([a, b]), minitorch.stack([a, b])
    a.add_(5)
    assert joined.sum().item() == stacked.sum().item() == 6.0


def test_the_cpu_joins_in_one_call_and_the_simple_backend_copies_per_part() -> None:
    """Which route each backend takes: both routes are compared with PyTorch above."""
    assert offers(backend_of(minitorch.zeros(1)), ConcatKernels)
    with minitorch.backends.use("simple"):
        assert not offers(backend_of(minitorch.zeros(1)), ConcatKernels)


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_wrong_inputs_raise_torch_errors(torch_ref: Any, op: str) -> None:
    mismatched = [np.zeros((2, 3)), np.zeros((3, 3) if op == "stack" else (2, 4))]
    for inputs in ([], mismatched):
        with pytest.raises(Exception) as expected:
            getattr(torch_ref, op)([torch_ref.tensor(a) for a in inputs])
        with pytest.raises(Exception) as got:
            getattr(minitorch, op)([minitorch.tensor(a) for a in inputs])
        assert type(got.value) is type(expected.value)
        assert str(got.value).split("(")[0][:30] == str(expected.value).split("(")[0][:30]


def test_a_legacy_empty_tensor_is_passed_over_but_promotes_and_gets_an_empty_gradient(torch_ref: Any) -> None:
    def run(lib: Any) -> tuple[Any, ...]:
        empty = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        x = lib.ones(2, 3, requires_grad=True)
        out = lib.cat([empty, x, lib.zeros(0)], 1)
        (out * out).sum().backward()
        return out, empty.grad, x.grad

    for got, expected in zip(run(minitorch), run(torch_ref), strict=True):
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_on_the_gpu_parts_are_copied_on_the_device(small_cuda: None, op: str) -> None:
    """The cuda backend has no one-call join: each part is copied into its slice on the device."""
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((2, 3)) for _ in range(3)]
    leaves = [minitorch.tensor(a, device="cuda", requires_grad=True) for a in arrays]
    out = getattr(minitorch, op)([leaf.t() for leaf in leaves], 1)
    assert out.device.type == "cuda"
    np.testing.assert_array_equal(out.cpu().detach().numpy(), getattr(np, "concatenate" if op == "cat" else "stack")(
        [a.T for a in arrays], 1))
    weights = rng.standard_normal(tuple(out.shape))
    (out * minitorch.tensor(weights, device="cuda")).sum().backward()
    for k, leaf in enumerate(leaves):
        own = weights[:, 2 * k : 2 * k + 2] if op == "cat" else weights[:, k]
        np.testing.assert_array_equal(leaf.grad.cpu().numpy(), own.T)
