"""Tensor creation and the PyTorch-compatible API around tensors (task 2.6).

Expected values come from NumPy or are written out by hand from PyTorch's documented
behaviour (dtype inference, promotion, repr layout, error messages). Tests that compute
through a backend take the ``backend`` fixture, so they run on both CPU backends.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import numpy as np
import pytest

import minitorch
from minitorch import Tensor

pytestmark = pytest.mark.task("2.6")

F32, F64, F16 = minitorch.float32, minitorch.float64, minitorch.float16
I32, I64, BOOL, U8 = minitorch.int32, minitorch.int64, minitorch.bool, minitorch.uint8


@pytest.fixture
def default_float64() -> Iterator[None]:
    """Switch the default float dtype to float64 for one test, and back."""
    previous = minitorch.get_default_dtype()
    minitorch.set_default_dtype(F64)
    try:
        yield
    finally:
        minitorch.set_default_dtype(previous)


def values_of(t: Tensor) -> np.ndarray:
    return np.array(t.detach().numpy())


# ---------------------------------------------------------------- tensor() and dtype inference


@pytest.mark.parametrize(
    "data,dtype,shape",
    [
        ([1.0, 2.0], F32, (2,)),
        ([1, 2, 3], I64, (3,)),
        ([True, False], BOOL, (2,)),
        ([1, 2.5], F32, (2,)),
        ([[1, 2], [3, 4]], I64, (2, 2)),
        (3.5, F32, ()),
        (7, I64, ()),
        (False, BOOL, ()),
        ([], F32, (0,)),
        (np.arange(3, dtype=np.int32), I32, (3,)),
        (np.ones(2), F64, (2,)),
        (np.ones(2, dtype=np.float16), F16, (2,)),
        (np.zeros((2, 3), dtype=np.uint8), U8, (2, 3)),
    ],
    ids=["floats", "ints", "bools", "mixed", "nested", "float", "int", "bool", "empty", "np_int32", "np_float64", "np_float16", "np_uint8"],
)
def test_tensor_infers_dtype(data: Any, dtype: minitorch.dtype, shape: tuple) -> None:
    t = minitorch.tensor(data)
    assert t.dtype is dtype
    assert t.shape == shape
    np.testing.assert_array_equal(values_of(t), np.asarray(data, dtype=dtype.numpy))


def test_tensor_with_explicit_dtype_and_copies() -> None:
    t = minitorch.tensor([1, 2], dtype=F64)
    assert t.dtype is F64 and t.tolist() == [1.0, 2.0]
    assert minitorch.tensor([1.9, -1.9], dtype=I64).tolist() == [1, -1]
    array = np.array([1.0, 2.0])
    copy = minitorch.tensor(array)
    array[0] = 100.0
    assert copy.tolist() == [1.0, 2.0]  # tensor() always copies
    source = minitorch.tensor([1.0, 2.0])
    again = minitorch.tensor(source)
    assert again.tolist() == [1.0, 2.0] and again.dtype is F32
    with pytest.raises((TypeError, ValueError)):
        minitorch.tensor([[1, 2], [3]])


def test_legacy_tensor_constructor() -> None:
    assert minitorch.Tensor([1, 2]).dtype is F32
    assert minitorch.Tensor(2, 3).shape == (2, 3)
    assert minitorch.is_tensor(minitorch.Tensor([1.0])) and not minitorch.is_tensor([1.0])


# ---------------------------------------------------------------- factories


@pytest.mark.parametrize(
    "make,expected,dtype",
    [
        (lambda: minitorch.zeros(2, 3), np.zeros((2, 3)), F32),
        (lambda: minitorch.zeros((2, 3)), np.zeros((2, 3)), F32),
        (lambda: minitorch.zeros([2, 3], dtype=I64), np.zeros((2, 3)), I64),
        (lambda: minitorch.ones(3), np.ones(3), F32),
        (lambda: minitorch.ones(2, 2, dtype=F64), np.ones((2, 2)), F64),
        (lambda: minitorch.ones(()), np.ones(()), F32),
        (lambda: minitorch.full((2, 2), 1.5), np.full((2, 2), 1.5), F32),
        (lambda: minitorch.full((3,), 7), np.full(3, 7), I64),
        (lambda: minitorch.full((2,), True), np.full(2, True), BOOL),
        (lambda: minitorch.full((2,), 7, dtype=F64), np.full(2, 7.0), F64),
        (lambda: minitorch.arange(5), np.arange(5), I64),
        (lambda: minitorch.arange(2, 7), np.arange(2, 7), I64),
        (lambda: minitorch.arange(10, 0, -3), np.arange(10, 0, -3), I64),
        (lambda: minitorch.arange(0, 1, 0.25), np.arange(0, 1, 0.25), F32),
        (lambda: minitorch.arange(1.5, 4), np.arange(1.5, 4), F32),
        (lambda: minitorch.arange(4, dtype=F64), np.arange(4.0), F64),
        (lambda: minitorch.arange(0), np.arange(0), I64),
        (lambda: minitorch.linspace(0, 1, 5), np.linspace(0, 1, 5), F32),
        (lambda: minitorch.linspace(-2, 2, 3, dtype=F64), np.linspace(-2, 2, 3), F64),
        (lambda: minitorch.linspace(0, 1, 1), np.linspace(0, 1, 1), F32),
        (lambda: minitorch.eye(3), np.eye(3), F32),
        (lambda: minitorch.eye(2, 3), np.eye(2, 3), F32),
        (lambda: minitorch.eye(2, dtype=I64), np.eye(2), I64),
    ],
)
def test_factories(make: Any, expected: np.ndarray, dtype: minitorch.dtype) -> None:
    t = make()
    assert t.dtype is dtype
    assert t.shape == expected.shape
    assert not t.requires_grad and t.is_leaf
    np.testing.assert_allclose(values_of(t), expected, rtol=1e-7)


def test_empty() -> None:
    t = minitorch.empty(2, 3)
    assert t.shape == (2, 3) and t.dtype is F32
    assert minitorch.empty((4,), dtype=I64).dtype is I64


def test_factories_requires_grad_and_errors() -> None:
    t = minitorch.zeros(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert minitorch.ones(2, dtype=F64, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="zeros: Dimension size must be non-negative"):
        minitorch.zeros(2, -1)
    with pytest.raises(RuntimeError):
        minitorch.arange(0, 5, 0)
    with pytest.raises(RuntimeError):
        minitorch.arange(5, 0, 1)
    with pytest.raises(TypeError):
        minitorch.zeros(2.5)


def test_like_factories() -> None:
    base = minitorch.tensor([[1, 2, 3], [4, 5, 6]], dtype=I32)
    for make, fill in ((minitorch.zeros_like, 0), (minitorch.ones_like, 1), (lambda t, **k: minitorch.full_like(t, 9, **k), 9)):
        same = make(base)
        assert same.shape == (2, 3) and same.dtype is I32
        np.testing.assert_array_equal(values_of(same), np.full((2, 3), fill))
        other = make(base, dtype=F64)
        assert other.dtype is F64
        np.testing.assert_array_equal(values_of(other), np.full((2, 3), float(fill)))
    assert minitorch.empty_like(base).shape == (2, 3) and minitorch.empty_like(base).dtype is I32
    floats = minitorch.ones(2, 2, dtype=F64)
    r, n = minitorch.rand_like(floats), minitorch.randn_like(floats)
    assert r.shape == n.shape == (2, 2) and r.dtype is n.dtype is F64
    assert minitorch.zeros_like(floats, requires_grad=True).requires_grad
    assert base.new_zeros(3).dtype is I32 and base.new_ones((1, 2)).shape == (1, 2)
    assert base.new_full((2,), 4).tolist() == [4, 4]
    assert base.new_tensor([1.5]).dtype is I32 and minitorch.ones(1).new_tensor([1.5]).tolist() == [1.5]


# ---------------------------------------------------------------- random numbers


def test_random_factories() -> None:
    minitorch.manual_seed(123)
    u = values_of(minitorch.rand(4000))
    assert minitorch.rand(2, 3).shape == (2, 3) and minitorch.rand(2).dtype is F32
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.03  # 4000 uniform samples: std of the mean is 0.0046
    n = values_of(minitorch.randn(4000, dtype=F64))
    assert abs(n.mean()) < 0.1 and abs(n.std() - 1.0) < 0.1
    k = minitorch.randint(3, 7, (1000,))
    assert k.dtype is I64 and set(k.tolist()) == {3, 4, 5, 6}
    k2 = minitorch.randint(4, (2, 5))
    assert k2.shape == (2, 5) and set(k2.tolist()[0] + k2.tolist()[1]) <= {0, 1, 2, 3}
    with pytest.raises(RuntimeError):
        minitorch.rand(2, dtype=I64)
    with pytest.raises(RuntimeError):
        minitorch.randint(5, 5, (2,))


def test_manual_seed_reproduces() -> None:
    minitorch.manual_seed(7)
    first = (minitorch.rand(5).tolist(), minitorch.randn(3).tolist(), minitorch.randint(100, (4,)).tolist())
    assert minitorch.initial_seed() == 7
    minitorch.manual_seed(7)
    second = (minitorch.rand(5).tolist(), minitorch.randn(3).tolist(), minitorch.randint(100, (4,)).tolist())
    assert first == second
    minitorch.manual_seed(8)
    assert minitorch.rand(5).tolist() != first[0]


def test_rng_state_round_trip() -> None:
    minitorch.manual_seed(11)
    minitorch.rand(3)
    state = minitorch.get_rng_state()
    assert state.dtype is U8 and state.dim() == 1
    expected = (minitorch.randn(4).tolist(), minitorch.rand(2).tolist())
    minitorch.rand(10)  # move on
    minitorch.set_rng_state(state)
    assert (minitorch.randn(4).tolist(), minitorch.rand(2).tolist()) == expected
    # the state is a snapshot, not a live view of the generator
    snapshot = state.tolist()
    minitorch.rand(3)
    assert state.tolist() == snapshot
    with pytest.raises(RuntimeError):
        minitorch.set_rng_state(minitorch.zeros(3))


# ---------------------------------------------------------------- NumPy interop and conversions


@pytest.mark.in_process  # memory shared with the test's own arrays: not through a proxy
def test_from_numpy_shares_memory_both_ways() -> None:
    array = np.arange(6.0).reshape(2, 3)
    t = minitorch.from_numpy(array)
    assert t.dtype is F64 and t.shape == (2, 3)
    array[0, 1] = 50.0
    assert t[0, 1].item() == 50.0
    t[1, 2] = -7.0
    assert array[1, 2] == -7.0
    # non-contiguous arrays are shared too, with their layout
    view = array[:, ::2]
    tv = minitorch.from_numpy(view)
    assert tv.tolist() == view.tolist() and not tv.is_contiguous()
    view[1, 0] = 99.0
    assert tv[1, 0].item() == 99.0
    tt = minitorch.from_numpy(array.T)
    assert tt.tolist() == array.T.tolist() and tt.stride() == (1, 3)
    ints = np.array([1, 2], dtype=np.int32)
    assert minitorch.from_numpy(ints).dtype is I32
    with pytest.raises(ValueError, match="negative"):
        minitorch.from_numpy(array[:, ::-1])
    with pytest.raises(TypeError):
        minitorch.from_numpy(np.array([1 + 2j]))
    with pytest.raises(TypeError):
        minitorch.from_numpy([1.0, 2.0])


@pytest.mark.in_process  # memory shared with the test's own arrays: not through a proxy
def test_as_tensor_shares_numpy_memory_unless_converted() -> None:
    array = np.array([1.0, 2.0])
    shared = minitorch.as_tensor(array)
    array[0] = 10.0
    assert shared.tolist() == [10.0, 2.0]
    converted = minitorch.as_tensor(array, dtype=F32)
    array[1] = 20.0
    assert converted.dtype is F32 and converted.tolist() == [10.0, 2.0]


def test_as_tensor() -> None:
    assert minitorch.as_tensor(np.array([1.0, 2.0])).tolist() == [1.0, 2.0]
    converted = minitorch.as_tensor(np.array([1.0, 2.0]), dtype=F32)
    assert converted.dtype is F32 and converted.tolist() == [1.0, 2.0]
    t = minitorch.tensor([1, 2])
    assert minitorch.as_tensor(t) is t
    assert minitorch.as_tensor([1, 2]).dtype is I64
    assert minitorch.as_tensor(t, dtype=F64).dtype is F64


@pytest.mark.in_process  # memory shared with the test's own arrays: not through a proxy
def test_numpy_shares_memory_and_refuses_grad() -> None:
    t = minitorch.tensor([1.0, 2.0, 3.0])
    view = t.numpy()
    assert view.dtype == np.float32
    view[0] = 42.0
    assert t[0].item() == 42.0
    transposed = minitorch.tensor([[1, 2, 3], [4, 5, 6]]).T.numpy()
    np.testing.assert_array_equal(transposed, [[1, 4], [2, 5], [3, 6]])
    x = minitorch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        x.numpy()
    np.testing.assert_array_equal(x.detach().numpy(), [1.0])
    np.testing.assert_array_equal(np.asarray(minitorch.tensor([[1, 2]])), [[1, 2]])


def test_item_and_tolist() -> None:
    f = minitorch.tensor([2.5]).item()
    assert f == 2.5 and type(f) is float
    i = minitorch.tensor([[3]]).item()
    assert i == 3 and type(i) is int
    b = minitorch.tensor(True).item()
    assert b is True
    with pytest.raises(RuntimeError):
        minitorch.tensor([1, 2]).item()
    assert minitorch.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert minitorch.tensor(2.5).tolist() == 2.5
    assert minitorch.tensor([True, False]).tolist() == [True, False]
    assert float(minitorch.tensor(1.5)) == 1.5 and int(minitorch.tensor(4)) == 4
    assert bool(minitorch.tensor([1])) is True
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(minitorch.tensor([1, 1]))


def test_to_and_dtype_shortcuts(backend: str) -> None:
    t = minitorch.tensor([1.75, -1.75, 0.0])
    for convert, dtype, expected in (
        (lambda x: x.double(), F64, [1.75, -1.75, 0.0]),
        (lambda x: x.half(), F16, [1.75, -1.75, 0.0]),
        (lambda x: x.long(), I64, [1, -1, 0]),  # truncation toward zero
        (lambda x: x.int(), I32, [1, -1, 0]),
        (lambda x: x.bool(), BOOL, [True, True, False]),
        (lambda x: x.to(F64), F64, [1.75, -1.75, 0.0]),
        (lambda x: x.to(dtype=I64), I64, [1, -1, 0]),
        (lambda x: x.to("cpu", F64), F64, [1.75, -1.75, 0.0]),
        (lambda x: x.to(minitorch.zeros(1, dtype=I32)), I32, [1, -1, 0]),
        (lambda x: x.type_as(minitorch.zeros(1, dtype=F16)), F16, [1.75, -1.75, 0.0]),
        (lambda x: x.double().float(), F32, [1.75, -1.75, 0.0]),
    ):
        converted = convert(t)
        assert converted.dtype is dtype
        assert converted.tolist() == expected
    assert t.to(F32) is t and t.to("cpu") is t and t.float() is t
    copied = t.to(F32, copy=True)
    assert copied is not t and copied.tolist() == t.tolist()
    copied[0] = 0.0
    assert t[0].item() == 1.75
    assert minitorch.tensor([0, 3]).float().tolist() == [0.0, 3.0]
    assert minitorch.tensor([True, False]).long().tolist() == [1, 0]


# ---------------------------------------------------------------- shape API and Size


@pytest.mark.in_process  # a local tuple, not a proxy of one: not through a proxy
def test_size_is_a_tuple() -> None:
    assert isinstance(minitorch.zeros(2, 3).shape, tuple) and isinstance(minitorch.Size([2]), tuple)


def test_shape_size_dim_numel() -> None:
    t = minitorch.zeros(2, 3, 4)
    assert isinstance(t.shape, minitorch.Size)
    assert t.shape == (2, 3, 4) and t.size() == (2, 3, 4)
    assert t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == t.ndim == 3
    assert t.numel() == 24 == minitorch.numel(t) == t.shape.numel()
    assert len(t) == 2
    scalar = minitorch.tensor(1.0)
    assert scalar.shape == () and scalar.dim() == 0 and scalar.numel() == 1
    with pytest.raises(IndexError):
        t.size(3)
    with pytest.raises(TypeError):
        len(scalar)
    assert minitorch.zeros(2, 0).numel() == 0


def test_size_repr_and_slicing() -> None:
    assert repr(minitorch.zeros(2, 3).shape) == "minitorch.Size([2, 3])"
    assert repr(minitorch.tensor(1.0).shape) == "minitorch.Size([])"
    assert repr(minitorch.Size([5])) == "minitorch.Size([5])"
    tail = minitorch.zeros(2, 3, 4).shape[1:]
    assert isinstance(tail, minitorch.Size) and tail == (3, 4)
    assert minitorch.zeros(2, 3).shape[0] == 2
    assert minitorch.Size([2]) + (3,) == (2, 3)


def test_strides_and_contiguity(backend: str) -> None:
    t = minitorch.zeros(2, 3, 4)
    assert t.stride() == (12, 4, 1) and t.stride(0) == 12
    assert t.is_contiguous()
    p = t.permute(2, 0, 1)
    assert p.stride() == (1, 12, 4) and not p.is_contiguous()
    assert p.contiguous().is_contiguous() and p.contiguous().stride() == (6, 3, 1)
    assert not t[:, :, ::2].is_contiguous()
    assert t[1].is_contiguous() and t[1].storage_offset() == 12
    assert t.transpose(0, 1).transpose(0, 1).is_contiguous()
    assert minitorch.zeros(3, 1).T.is_contiguous()  # size-1 dimensions don't matter
    assert not minitorch.zeros(1, 3).expand(2, 3).is_contiguous()
    assert t.element_size() == 4 and minitorch.zeros(1, dtype=F64).element_size() == 8


def test_view_shares_storage_and_errors(backend: str) -> None:
    t = minitorch.arange(6.0)
    v = t.view(2, 3)
    v[1, 0] = 100.0
    assert t[3].item() == 100.0
    with pytest.raises(RuntimeError, match=r"Use \.reshape"):
        minitorch.zeros(2, 3).T.view(6)
    with pytest.raises(RuntimeError, match="is invalid for input of size 6"):
        minitorch.zeros(2, 3).view(4)
    with pytest.raises(RuntimeError, match="is invalid for input of size 6"):
        minitorch.zeros(2, 3).view(-1, 4)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        minitorch.zeros(2, 3).view(-1, -1)
    with pytest.raises(RuntimeError, match="is invalid for input of size 6"):
        minitorch.zeros(2, 3).reshape(5)


def test_reshape_copies_only_when_needed(backend: str) -> None:
    t = minitorch.arange(6.0).view(2, 3)
    same = t.reshape(3, 2)
    same[0, 0] = -1.0
    assert t[0, 0].item() == -1.0  # contiguous: a view
    transposed = t.T
    flat = transposed.reshape(6)
    np.testing.assert_array_equal(values_of(flat), [-1.0, 3.0, 1.0, 4.0, 2.0, 5.0])
    flat[1] = 555.0
    assert 555.0 not in t.view(-1).tolist()  # non-viewable: a copy
    assert t.reshape(-1).is_contiguous()


def test_index_errors() -> None:
    t = minitorch.zeros(2, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        t[2]
    with pytest.raises(IndexError, match="out of bounds"):
        t[0, -4]
    with pytest.raises(IndexError, match="out of bounds"):
        t[:, 3]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="too many indices"):
        t[..., 0, 0, 0]
    with pytest.raises(IndexError):
        t[..., 0, ...]
    with pytest.raises(ValueError):
        t[::-1]
    with pytest.raises(IndexError):
        t[1.5]
    with pytest.raises(IndexError):
        minitorch.tensor(1.0)[0]
    assert t[5:].shape == (0, 3)  # slices clamp, as in Python


def test_dim_errors() -> None:
    t = minitorch.zeros(2, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.unsqueeze(3)
    with pytest.raises(RuntimeError):
        t.permute(0, 0)
    with pytest.raises(RuntimeError):
        t.narrow(1, 2, 2)


# ---------------------------------------------------------------- repr


def test_repr_like_pytorch(backend: str) -> None:
    assert repr(minitorch.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(minitorch.tensor([[1, 2], [3, 4]])) == "tensor([[1, 2],\n        [3, 4]])"
    assert repr(minitorch.tensor([1.5, 2.25])) == "tensor([1.5000, 2.2500])"
    assert repr(minitorch.tensor(3.5)) == "tensor(3.5000)"
    assert repr(minitorch.tensor(7)) == "tensor(7)"
    assert repr(minitorch.tensor([True, False])) == "tensor([ True, False])"
    assert repr(minitorch.tensor([-1, 10])) == "tensor([-1, 10])"
    assert repr(minitorch.tensor([1.0, 2.0], dtype=F64)) == "tensor([1., 2.], dtype=minitorch.float64)"
    assert repr(minitorch.tensor([1, 2], dtype=I32)) == "tensor([1, 2], dtype=minitorch.int32)"
    assert repr(minitorch.tensor([1.0], requires_grad=True)) == "tensor([1.], requires_grad=True)"
    assert (
        repr(minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, requires_grad=True))
        == "tensor([[1., 2.],\n        [3., 4.]], dtype=minitorch.float64, requires_grad=True)"
    )
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x + 1) == "tensor([2., 3.], grad_fn=<AddBackward0>)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(minitorch.tensor([])) == "tensor([])"
    assert repr(minitorch.float64) == "minitorch.float64"
    assert str(minitorch.tensor([1.0, 2.0])) == "tensor([1., 2.])"


def test_repr_has_no_memory_address(backend: str) -> None:
    x = minitorch.tensor([[1.0, 2.0]], requires_grad=True)
    y = (x * 2).sum(0).exp()
    for shown in (repr(x), repr(y), str(y), repr(y.shape), repr(y.dtype), f"{y}"):
        assert "0x" not in shown and " at " not in shown, shown


def test_node_repr_is_pytorchs(backend: str, torch_ref: Any) -> None:
    """A node prints as PyTorch's does, ``<ExpBackward0 object at 0x...>``: the address is the
    only part that differs (notebooks and the compat runner mask addresses)."""
    mask = re.compile(r"0x[0-9a-f]+")
    y = (minitorch.tensor([[1.0, 2.0]], requires_grad=True) * 2).sum(0).exp()
    expected = (torch_ref.tensor([[1.0, 2.0]], requires_grad=True) * 2).sum(0).exp()
    assert mask.sub("ADDR", repr(y.grad_fn)) == mask.sub("ADDR", repr(expected.grad_fn))


def test_repr_of_views_shows_their_values(backend: str) -> None:
    t = minitorch.tensor([[1, 2, 3], [4, 5, 6]])
    assert repr(t.T) == "tensor([[1, 4],\n        [2, 5],\n        [3, 6]])"
    assert repr(t[:, ::2]) == "tensor([[1, 3],\n        [4, 6]])"


# ---------------------------------------------------------------- default dtype and promotion


def test_set_default_dtype(default_float64: None) -> None:
    assert minitorch.get_default_dtype() is F64
    assert minitorch.tensor([1.5]).dtype is F64
    assert minitorch.zeros(2).dtype is F64 and minitorch.rand(2).dtype is F64
    assert minitorch.arange(0.0, 1.0, 0.5).dtype is F64
    assert (minitorch.tensor([1, 2]) * 1.5).dtype is F64
    assert (minitorch.tensor([1, 2]) / minitorch.tensor([2, 2])).dtype is F64
    assert repr(minitorch.tensor([1.0])) == "tensor([1.])"  # the default dtype isn't shown
    assert repr(minitorch.tensor([1.0], dtype=F32)) == "tensor([1.], dtype=minitorch.float32)"
    assert minitorch.tensor([1]).dtype is I64


def test_set_default_dtype_rejects_non_float() -> None:
    with pytest.raises(TypeError):
        minitorch.set_default_dtype(I64)
    assert minitorch.get_default_dtype() is F32


def _t(dtype: minitorch.dtype, zero_dim: bool = False) -> Tensor:
    return minitorch.tensor(1 if zero_dim else [1, 1], dtype=dtype)


PROMOTION = [
    ("int tensor + float scalar", lambda: _t(I64) + 2.5, F32),
    ("float scalar * int tensor", lambda: 2.5 * _t(I32), F32),
    ("float16 tensor + python float", lambda: _t(F16) + 2.5, F16),
    ("float16 tensor + python int", lambda: _t(F16) * 3, F16),
    ("int32 tensor + int64 tensor", lambda: _t(I32) + _t(I64), I64),
    ("int32 tensor + python int", lambda: _t(I32) + 5, I32),
    ("0-d float64 + float32 1-d", lambda: _t(F64, True) + _t(F32), F32),
    ("0-d float64 + int64 1-d", lambda: _t(F64, True) + _t(I64), F64),
    ("0-d int64 + int32 1-d", lambda: _t(I64, True) + _t(I32), I32),
    ("0-d int64 + float scalar", lambda: _t(I64, True) + 1.5, F32),
    ("0-d float64 + 0-d float32", lambda: _t(F64, True) + _t(F32, True), F64),
    ("int / int", lambda: _t(I64) / _t(I64), F32),
    ("int / python int", lambda: _t(I32) / 2, F32),
    ("bool + int", lambda: _t(BOOL) + _t(I64), I64),
    ("bool + python int", lambda: _t(BOOL) + 1, I64),
    ("bool + python bool", lambda: _t(BOOL) * True, BOOL),
    ("uint8 + python int", lambda: _t(U8) + 1000, U8),
    ("uint8 + int32", lambda: _t(U8) + _t(I32), I32),
    ("float16 + float32", lambda: _t(F16) + _t(F32), F32),
    ("float32 + float64", lambda: _t(F32) - _t(F64), F64),
    ("int64 + float16", lambda: _t(I64) + _t(F16), F16),
    ("float32 ** python int", lambda: _t(F32) ** 2, F32),
    ("int ** python float", lambda: _t(I64) ** 0.5, F32),
    ("python int - int32", lambda: 3 - _t(I32), I32),
    ("maximum int32, float64", lambda: minitorch.maximum(_t(I32), _t(F64)), F64),
    ("where int, float", lambda: minitorch.where(_t(BOOL), _t(I64), _t(F16)), F16),
]


@pytest.mark.parametrize("case,make,expected", PROMOTION, ids=[p[0] for p in PROMOTION])
def test_type_promotion(backend: str, case: str, make: Any, expected: minitorch.dtype) -> None:
    result = make()
    assert result.dtype is expected, f"{case}: {result.dtype}"


def test_promotion_values(backend: str) -> None:
    assert (minitorch.tensor([1, 2]) + 0.5).tolist() == [1.5, 2.5]
    assert (minitorch.tensor([1, 2]) / minitorch.tensor([2, 4])).tolist() == [0.5, 0.5]
    assert (minitorch.tensor([True, False]) + minitorch.tensor([2, 3])).tolist() == [3, 3]
    half = minitorch.tensor([1.0, 2.0], dtype=F16) * 1.5
    assert half.tolist() == [1.5, 3.0]


def test_devices_are_cpu() -> None:
    t = minitorch.zeros(1)
    assert t.device == minitorch.device("cpu") and t.device == "cpu" and not t.is_cuda
    assert str(t.device) == "cpu" and repr(t.device) == "device(type='cpu')"
    # mixing devices can't be tested until a second device exists
