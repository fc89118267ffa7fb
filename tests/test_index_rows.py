"""``x[index]`` with one integer index (tensor, array or list) or one boolean mask over leading
dimensions, against PyTorch: values, the recorded graph (one ``IndexBackward0`` as PyTorch's),
gradients with repeated and negative rows, second derivatives, errors, and the cuda device."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch

KEYS = {
    "int64 vector": lambda lib: lib.tensor([3, 0, 3, -1]),
    "int32 matrix": lambda lib: lib.tensor([[1, 2], [2, -4]], dtype=lib.int32),
    "list": lambda lib: [4, 1, 1],
    "numpy": lambda lib: np.array([0, -2]),
    "empty": lambda lib: lib.tensor([], dtype=lib.int64),
    "mask of the first dim": lambda lib: lib.tensor([True, False, True, True, False]),
    "numpy mask": lambda lib: np.array([False, True, False, False, True]),
    "mask of no row": lambda lib: lib.zeros(5, dtype=lib.bool),
}
#: masks over more leading dimensions, made from the source's own values
VALUE_MASKS = {"all dims": lambda x: x > 0, "first two dims": lambda x: x.sum(-1) > 0}


def _read(lib: Any, key: str, source_shape: tuple[int, ...]) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(source_shape), requires_grad=True)
    y = x[KEYS[key](lib)]
    weights = lib.tensor(rng.standard_normal(tuple(y.shape)))
    (y * y * weights).sum().backward()
    return x, y, weights


@pytest.mark.parametrize("source_shape", [(5,), (5, 3), (5, 2, 3)], ids=["1d", "2d", "3d"])
@pytest.mark.parametrize("key", KEYS)
def test_values_graph_and_gradient_match_torch(torch_ref: Any, key: str, source_shape: tuple[int, ...]) -> None:
    x, y, _ = _read(minitorch, key, source_shape)
    tx, ty, _ = _read(torch_ref, key, source_shape)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "IndexBackward0"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == \
        [type(n).__name__ for n, _ in ty.grad_fn.next_functions]


@pytest.mark.parametrize("mask", VALUE_MASKS)
def test_masks_over_leading_dims_match_torch(torch_ref: Any, mask: str) -> None:
    def run(lib: Any) -> tuple[Any, Any]:
        rng = np.random.default_rng(1)
        x = lib.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
        y = x[VALUE_MASKS[mask](x.detach())]
        (y * y * lib.tensor(rng.standard_normal(tuple(y.shape)))).sum().backward()
        return x, y

    (x, y), (tx, ty) = run(minitorch), run(torch_ref)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__


def test_a_mask_of_the_wrong_shape_raises_torchs_error(torch_ref: Any) -> None:
    with pytest.raises(IndexError) as expected:
        torch_ref.zeros(4, 3)[torch_ref.tensor([True, False, True])]
    with pytest.raises(IndexError) as got:
        minitorch.zeros(4, 3)[minitorch.tensor([True, False, True])]
    assert str(got.value) == str(expected.value)


def test_second_derivative_matches_torch(torch_ref: Any) -> None:
    def hessian_vector(lib: Any) -> np.ndarray:
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3), requires_grad=True)
        y = x[lib.tensor([2, 2, 0])]
        (grad,) = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((grad * grad).sum(), x)
        return second.detach().numpy()

    np.testing.assert_allclose(hessian_vector(minitorch), hessian_vector(torch_ref), rtol=1e-12)


@pytest.mark.parametrize("bad", [5, -6])
def test_out_of_range_rows_raise_torchs_error(torch_ref: Any, bad: int) -> None:
    with pytest.raises(IndexError) as expected:
        torch_ref.zeros(5, 2)[torch_ref.tensor([0, bad])]
    with pytest.raises(IndexError) as got:
        minitorch.zeros(5, 2)[minitorch.tensor([0, bad])]
    assert str(got.value) == str(expected.value)


def test_a_float_index_is_refused_as_in_torch(torch_ref: Any) -> None:
    with pytest.raises(IndexError) as expected:
        torch_ref.zeros(5)[torch_ref.tensor([1.0])]
    with pytest.raises(IndexError) as got:
        minitorch.zeros(5)[minitorch.tensor([1.0])]
    assert str(got.value) == str(expected.value)


def test_rows_of_a_cuda_tensor_stay_on_the_device(small_cuda: None) -> None:
    x = minitorch.tensor(np.arange(12.0).reshape(4, 3), device="cuda", requires_grad=True)
    y = x[minitorch.tensor([3, 3, 0])]
    assert y.device.type == "cuda"
    np.testing.assert_array_equal(y.cpu().detach().numpy(), np.arange(12.0).reshape(4, 3)[[3, 3, 0]])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.array([[1.0] * 3, [0.0] * 3, [0.0] * 3, [2.0] * 3]))
