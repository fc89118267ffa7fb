"""NumPy's keyword names (``axis=``, ``keepdims=``, ``x=``), creation keywords (``size=``,
``out=``, ``arange(start=, end=, step=)``, ``randint(low=, high=, size=)``) and the views taken
in place (``unsqueeze_``, ``t_`` ...), each run under minitorch and PyTorch and compared."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

import minitorch

LIBS = ("minitorch", "torch")


def both(torch_ref: ModuleType, make: Callable[[Any], Any]) -> tuple[Any, Any]:
    return make(minitorch), make(torch_ref)


def plain(value: Any) -> Any:
    """Shapes and values, comparable across the two libraries."""
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return (tuple(value.shape), value.tolist())


def matrix(lib: ModuleType) -> Any:
    return lib.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], dtype=lib.float64)


AXIS_CALLS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "torch.sum(axis)": lambda lib, x: lib.sum(x, axis=0),
    "sum(axis, keepdims)": lambda lib, x: x.sum(axis=1, keepdims=True),
    "mean(axis)": lambda lib, x: x.mean(axis=0),
    "std(axis)": lambda lib, x: x.std(axis=1),
    "max(axis)": lambda lib, x: x.max(axis=1),
    "argmax(axis)": lambda lib, x: lib.argmax(x, axis=1),
    "cumsum(axis)": lambda lib, x: x.cumsum(axis=1),
    "torch.cumprod(axis)": lambda lib, x: lib.cumprod(x, axis=0),
    "cat(axis)": lambda lib, x: lib.cat([x, x], axis=1),
    "stack(axis)": lambda lib, x: lib.stack([x, x], axis=2),
    "softmax(axis)": lambda lib, x: x.softmax(axis=0),
    "unsqueeze(axis)": lambda lib, x: x.unsqueeze(axis=1),
    "sort(axis)": lambda lib, x: x.sort(axis=0).values,
    "topk(axis)": lambda lib, x: x.topk(1, axis=0).values,
    "logsumexp(axis)": lambda lib, x: x.logsumexp(axis=1),
    "prod(axis)": lambda lib, x: x.prod(axis=0),
    "gather(axis)": lambda lib, x: x.gather(axis=1, index=lib.tensor([[0], [2]])),
    "index_select(axis)": lambda lib, x: x.index_select(axis=1, index=lib.tensor([2, 0])),
    "narrow(axis)": lambda lib, x: x.narrow(axis=1, start=1, length=2),
    "torch.sum(a=)": lambda lib, x: lib.sum(a=x),
    "torch.add(x1=, x2=)": lambda lib, x: lib.add(x1=x, x2=x),
}


@pytest.mark.parametrize("name", sorted(AXIS_CALLS))
def test_numpy_names_as_torch(name: str, torch_ref: ModuleType) -> None:
    ours, theirs = both(torch_ref, lambda lib: AXIS_CALLS[name](lib, matrix(lib)))
    assert plain(ours) == plain(theirs)


def test_a_parameter_and_its_numpy_name_together_is_an_error() -> None:
    with pytest.raises(TypeError, match="dim and axis"):
        minitorch.sum(matrix(minitorch), dim=0, axis=0)


def test_the_numpy_names_show_in_the_signature() -> None:
    import inspect

    parameters = inspect.signature(minitorch.Tensor.cumsum).parameters
    assert "axis" in parameters and "dim" in parameters


CREATION_CALLS: dict[str, Callable[[ModuleType], Any]] = {
    "arange(end=)": lambda lib: lib.arange(end=3),
    "arange(start=, end=)": lambda lib: lib.arange(start=1, end=4),
    "arange(start, end=, step=)": lambda lib: lib.arange(1, end=8, step=3),
    "arange(start, end, step=)": lambda lib: lib.arange(0, 10, step=4),
    "arange(start, end)": lambda lib: lib.arange(2, 5),
    "zeros(size=)": lambda lib: lib.zeros(size=(2, 1)),
    "ones(size=)": lambda lib: lib.ones(size=[3]),
    "empty(size=).shape": lambda lib: lib.empty(size=(1, 2)).zero_(),
    "zeros_like(input=)": lambda lib: lib.zeros_like(input=matrix(lib)),
    "full_like(input=)": lambda lib: lib.full_like(input=matrix(lib), fill_value=7.0),
}


@pytest.mark.parametrize("name", sorted(CREATION_CALLS))
def test_creation_keywords_as_torch(name: str, torch_ref: ModuleType) -> None:
    ours, theirs = both(torch_ref, CREATION_CALLS[name])
    assert plain(ours) == plain(theirs)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.randint(10, (3,)),
    lambda lib: lib.randint(low=2, high=5, size=(4,)),
    lambda lib: lib.randint(high=5, size=(2, 2)),
    lambda lib: lib.randint(0, 4, size=(5,)),
], ids=["high,size", "all keywords", "high=,size=", "low,high,size="])
def test_randint_overloads_as_torch(call: Callable[[ModuleType], Any], torch_ref: ModuleType) -> None:
    ours, theirs = both(torch_ref, call)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == "int64"


def test_randint_respects_its_bounds_given_by_keyword() -> None:
    values = minitorch.randint(low=3, high=6, size=(2000,)).tolist()
    assert set(values) == {3, 4, 5}


@pytest.mark.parametrize("make", [
    lambda lib, out: lib.zeros(2, 2, out=out),
    lambda lib, out: lib.ones(3, out=out),
    lambda lib, out: lib.full((2,), 4, out=out),
    lambda lib, out: lib.arange(4, out=out),
], ids=["zeros", "ones", "full", "arange"])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_out_is_resized_filled_in_its_dtype_and_returned(make: Callable[..., Any], dtype: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        out = lib.empty(5, dtype=getattr(lib, dtype))
        returned = make(lib, out)
        assert returned is out
        results.append((plain(out), str(out.dtype).split(".")[-1]))
    assert results[0] == results[1]


def test_random_out_keeps_its_dtype_and_takes_the_shape() -> None:
    out = minitorch.empty(7, dtype=minitorch.float64)
    assert minitorch.rand(2, 3, out=out) is out
    assert out.shape == (2, 3) and out.dtype is minitorch.float64
    assert 0.0 <= float(out.min()) and float(out.max()) < 1.0


def test_out_that_requires_grad_is_refused_as_torch() -> None:
    with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support automatic differentiation"):
        minitorch.arange(3.0, out=minitorch.empty(3, requires_grad=True))


def test_size_given_twice_is_an_error() -> None:
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        minitorch.zeros(2, size=(2,))


# ---- views taken in place ----

INPLACE_VIEWS: dict[str, Callable[[Any], Any]] = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, 1),
    "swapdims_": lambda x: x.swapdims_(1, 0),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "squeeze_()": lambda x: x.unsqueeze_(0).squeeze_(),
    "squeeze_(dim)": lambda x: x.unsqueeze_(0).squeeze_(0),
}


@pytest.mark.parametrize("name", sorted(INPLACE_VIEWS))
def test_views_in_place_as_torch(name: str, torch_ref: ModuleType) -> None:
    """Same shape, strides, values, grad_fn name and gradient as PyTorch; the op returns ``self``."""
    results = []
    for lib in (minitorch, torch_ref):
        leaf = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        x = leaf * 2
        assert INPLACE_VIEWS[name](x) is x
        weights = lib.arange(float(x.numel()), dtype=lib.float64).reshape(x.shape)
        (x * weights).sum().backward()
        results.append((plain(x), tuple(x.stride()), type(x.grad_fn).__name__, leaf.grad.tolist()))
    assert results[0] == results[1]


def test_a_view_in_place_keeps_the_storage_shared() -> None:
    x = minitorch.zeros(1, 2, 1)
    flat = x.view(2)
    x.squeeze_()
    x.add_(1)
    assert x.shape == (2,) and flat.tolist() == [1.0, 1.0]


def test_a_view_in_place_on_a_leaf_that_requires_grad_is_refused_as_torch() -> None:
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        minitorch.ones(2, requires_grad=True).unsqueeze_(0)
    with minitorch.no_grad():
        leaf = minitorch.ones(2, requires_grad=True)
        leaf.unsqueeze_(0)
    assert leaf.shape == (1, 2) and leaf.is_leaf


def test_swapdims_and_swapaxes_are_transpose(torch_ref: ModuleType) -> None:
    ours, theirs = both(torch_ref, lambda lib: (lib.swapdims(matrix(lib), 0, 1), lib.swapaxes(matrix(lib), 1, 0), matrix(lib).swapdims(0, 1)))
    assert plain(ours) == plain(theirs)
