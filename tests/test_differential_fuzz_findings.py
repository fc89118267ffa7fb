"""The differences from PyTorch that the differential fuzzer (``test_differential_fuzz.py``) found,
each pinned by a plain test against PyTorch itself."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

import minitorch


def _outcome(lib: Any, make: Callable[[Any], Any]) -> Any:
    """The result of ``make(lib)`` as plain data (shape, dtype name, values), or the exception's class."""
    try:
        out = make(lib)
    except Exception as error:  # noqa: BLE001 - the class is the outcome compared
        return type(error).__name__
    if isinstance(out, (tuple, list)):
        return [_outcome(lib, lambda _: item) for item in out]
    return tuple(out.shape), str(out.dtype).rsplit(".", 1)[-1], out.detach().numpy().tolist()


def _agree(torch_ref: Any, make: Callable[[Any], Any]) -> Any:
    theirs, ours = _outcome(torch_ref, make), _outcome(minitorch, make)
    assert ours == theirs, f"minitorch {ours} != PyTorch {theirs}"
    return ours


def _grads(lib: Any, values: list[list[float]], make: Callable[..., Any]) -> list[list[float]]:
    leaves = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    make(lib, *leaves).sum().backward()
    return [leaf.grad.tolist() for leaf in leaves]


@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((0, 3), -1), ((0, 0, 2), 0)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_an_empty_tensor_is_empty(torch_ref, name: str, shape: tuple[int, ...], dim: int) -> None:
    out = _agree(torch_ref, lambda lib: getattr(lib, name)(lib.ones(shape), dim))
    assert out[0] == shape


@pytest.mark.parametrize("make", [
    lambda lib: lib.softmax(lib.tensor(1.0), 1),
    lambda lib: lib.log_softmax(lib.tensor(1.0), -2),
    lambda lib: lib.tensor(1.0).transpose(-2, 0),
    lambda lib: lib.tensor(1.0).flatten(0, 1),
    lambda lib: lib.tensor(1.0).flip(1),
    lambda lib: lib.movedim(lib.tensor(1.0), 0, 1),
])
def test_a_0d_tensor_takes_dims_0_and_minus_1_only(torch_ref, make: Callable[[Any], Any]) -> None:
    assert _agree(torch_ref, make) == "IndexError"


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor(2.0).flip(0),
    lambda lib: lib.tensor(2.0).flip((-1,)),
    lambda lib: lib.movedim(lib.tensor(2.0), 0, -1),
    lambda lib: lib.tensor(2.0).flatten(-1, 0),
    lambda lib: lib.tensor(2.0).transpose(0, -1),
])
def test_dim_ops_of_a_0d_tensor(torch_ref, make: Callable[[Any], Any]) -> None:
    assert _agree(torch_ref, make)[2] in (2.0, [2.0])


@pytest.mark.parametrize("shape, chunks, dim", [((0,), 3, 0), ((2, 0), 4, 1), ((0, 2), 1, 0)])
def test_chunk_of_an_empty_dim_gives_chunks_pieces(torch_ref, shape: tuple[int, ...], chunks: int, dim: int) -> None:
    assert len(_agree(torch_ref, lambda lib: lib.chunk(lib.zeros(shape), chunks, dim))) == chunks


def test_chunk_refuses_a_0d_tensor(torch_ref) -> None:
    assert _agree(torch_ref, lambda lib: lib.chunk(lib.tensor(1.0), 2)) == "RuntimeError"


@pytest.mark.parametrize("dim", [1, -2, 5])
def test_cat_of_legacy_empty_tensors_checks_no_dim(torch_ref, dim: int) -> None:
    out = _agree(torch_ref, lambda lib: lib.cat([lib.zeros(0, dtype=lib.int32), lib.zeros(0)], dim=dim))
    assert out == ((0,), "float32", [])


def test_clamp_reads_a_0d_tensor_bound_as_a_number(torch_ref) -> None:
    x = [3, -3, 1]
    out = _agree(torch_ref, lambda lib: lib.clamp(lib.tensor(x, dtype=lib.int32), min=lib.tensor(-2, dtype=lib.int32), max=-0.0))
    assert out == ((3,), "float32", [-0.0, -2.0, -0.0])
    _agree(torch_ref, lambda lib: lib.tensor(x).clamp(lib.tensor(-1), 2))
    _agree(torch_ref, lambda lib: lib.tensor([0.5, 4.0]).clamp(max=lib.tensor(1.5), min=1))


@pytest.mark.parametrize("make", [
    lambda lib: lib.clamp(lib.tensor([1, 2]), min=1.5, max=lib.tensor([2, 2])),
    lambda lib: lib.clamp(lib.tensor([1.0, 2.0]), min=lib.tensor(1.5, requires_grad=True), max=3),
    lambda lib: lib.tensor([1.0, 2.0]).clamp(0, lib.tensor(1.5, requires_grad=True)),
])
def test_clamp_refuses_a_number_beside_a_tensor_bound_of_rank_1_or_needing_grad(torch_ref, make: Callable[[Any], Any]) -> None:
    assert _agree(torch_ref, make) == "TypeError"


@pytest.mark.parametrize("a, b", [("int64", "float32"), ("uint8", "float16"), ("float64", "int32")])
def test_hypot_promotes_an_integer_operand(torch_ref, a: str, b: str) -> None:
    out = _agree(torch_ref, lambda lib: lib.hypot(lib.tensor([3, 5]).to(getattr(lib, a)), lib.tensor([4, 12]).to(getattr(lib, b))))
    assert out[2] == [5.0, 13.0]


def test_hypot_of_two_integer_tensors_or_a_number_is_refused(torch_ref) -> None:
    assert _agree(torch_ref, lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4]))) == "NotImplementedError"
    assert _agree(torch_ref, lambda lib: lib.hypot(lib.tensor([3.0]), 4.0)) == "TypeError"


def test_atan2_gradient_at_the_origin_is_zero(torch_ref) -> None:
    values = [[0.0, -0.0, 1.0], [0.0, 0.0, -2.0]]
    theirs = _grads(torch_ref, values, lambda lib, y, x: lib.atan2(y, x))
    ours = _grads(minitorch, values, lambda lib, y, x: lib.atan2(y, x))
    assert np.allclose(ours, theirs) and not np.isnan(ours).any(), f"{ours} != {theirs}"


@pytest.mark.parametrize("correction", [0, 1])
def test_std_gradient_where_every_value_is_equal_is_zero(torch_ref, correction: int) -> None:
    values = [[1.5, 1.5], [0.0, 0.0]]
    theirs = _grads(torch_ref, [values], lambda lib, x: x.std(dim=1, correction=correction))
    ours = _grads(minitorch, [values], lambda lib, x: x.std(dim=1, correction=correction))
    assert ours == theirs == [[[0.0, 0.0], [0.0, 0.0]]]


def test_std_gradient_elsewhere_is_unchanged(torch_ref) -> None:
    values = [[1.0, 2.0, 4.0]]
    theirs = _grads(torch_ref, values, lambda lib, x: x.std())
    ours = _grads(minitorch, values, lambda lib, x: x.std())
    assert np.allclose(ours, theirs), f"{ours} != {theirs}"


@pytest.mark.parametrize("x, mask", [([], [False]), ([[1.0], [2.0]], [True, False, True]), (0.5, [[True], [False]])])
def test_masked_fill_broadcasts_input_and_mask(torch_ref, x: Any, mask: Any) -> None:
    _agree(torch_ref, lambda lib: lib.tensor(x).masked_fill(lib.tensor(mask), 7.0))


@pytest.mark.parametrize("dtype, value", [("int64", math.inf), ("int32", math.nan), ("uint8", 300), ("uint8", -1), ("int32", 300)])
def test_masked_fill_refuses_a_value_the_integer_dtype_cannot_hold(torch_ref, dtype: str, value: float) -> None:
    _agree(torch_ref, lambda lib: lib.tensor([1, 2]).to(getattr(lib, dtype)).masked_fill(lib.tensor([True, False]), value))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "bool"])
def test_nansum_of_integers_is_an_integer_sum(torch_ref, dtype: str) -> None:
    assert _agree(torch_ref, lambda lib: lib.nansum(lib.tensor([1, 0, 1]).to(getattr(lib, dtype))))[1] == "int64"


@pytest.mark.parametrize("name", ["any", "all"])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 0}, {"dim": 0, "keepdim": True}])
def test_any_and_all_of_uint8_are_uint8(torch_ref, name: str, kwargs: dict) -> None:
    out = _agree(torch_ref, lambda lib: getattr(lib, name)(lib.tensor([[2, 0], [1, 0]], dtype=lib.uint8), **kwargs))
    assert out[1] == "uint8"


@pytest.mark.parametrize("make, error", [
    (lambda lib: lib.argmax(lib.zeros(0, 2), 0), "IndexError"),
    (lambda lib: lib.argmin(lib.zeros(2, 0), -1, keepdim=True), "IndexError"),
    (lambda lib: lib.argmax(lib.zeros(0, 3)), "IndexError"),
    (lambda lib: lib.argmin(lib.tensor([True, False])), "RuntimeError"),
    (lambda lib: lib.argmax(lib.tensor([True]), 0), "RuntimeError"),
    (lambda lib: lib.amax(lib.zeros(0, 2)), "RuntimeError"),
    (lambda lib: lib.amin(lib.zeros(0, 2), ()), "RuntimeError"),
])
def test_arg_and_amax_reductions_raise_as_pytorch(torch_ref, make: Callable[[Any], Any], error: str) -> None:
    assert _agree(torch_ref, make) == error


def test_argmax_along_a_nonempty_dim_of_an_empty_tensor(torch_ref) -> None:
    assert _agree(torch_ref, lambda lib: lib.argmax(lib.zeros(0, 2), 1)) == ((0,), "int64", [])


@pytest.mark.parametrize("value", [math.nan, math.inf, 0.0, -2.0])
def test_prod_gradient_of_a_0d_tensor_is_the_incoming_gradient(torch_ref, value: float) -> None:
    for make in (lambda lib, x: x.prod() * 3, lambda lib, x: x.prod(0, keepdim=True) * 3):
        theirs = torch_ref.tensor(value, dtype=torch_ref.float64, requires_grad=True)
        ours = minitorch.tensor(value, dtype=minitorch.float64, requires_grad=True)
        make(torch_ref, theirs).backward()
        make(minitorch, ours).backward()
        assert ours.grad.item() == theirs.grad.item() == 3.0


@pytest.mark.parametrize("a_shape, b_shape", [((0,), (0, 0, 0)), ((2,), (0, 2, 3)), ((0, 0, 2), (2,)), ((3, 0, 2), (2,))])
def test_matmul_of_a_vector_and_an_empty_batch(torch_ref, a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    out = _agree(torch_ref, lambda lib: lib.matmul(lib.ones(a_shape), lib.ones(b_shape)))
    assert 0 in out[0]


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("value", [math.nan, 1.5])
def test_amax_of_a_0d_tensor_has_pytorchs_gradient(torch_ref, name: str, value: float) -> None:
    grads = []
    for lib in (torch_ref, minitorch):
        x = lib.tensor(value, dtype=lib.float64, requires_grad=True)
        out = getattr(lib, name)(x)
        (out * 2).backward()
        grads.append((tuple(out.shape), x.grad.item()))
    assert np.allclose(grads[0][1], grads[1][1], equal_nan=True) and grads[0][0] == grads[1][0], f"{grads[1]} != PyTorch's {grads[0]}"


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_modulo_gradient_of_the_divisor_at_an_infinite_dividend(torch_ref, name: str) -> None:
    values = [[-math.inf, 5.0, -5.0, math.inf], [-2.5, 2.0, 2.0, 3.0]]
    theirs = _grads(torch_ref, values, lambda lib, a, b: getattr(lib, name)(a, b))
    ours = _grads(minitorch, values, lambda lib, a, b: getattr(lib, name)(a, b))
    assert np.allclose(ours, theirs, equal_nan=True), f"{ours} != PyTorch's {theirs}"
