"""Older PyTorch API that tutorials still use, against PyTorch: ``Variable``, ``Tensor.new``,
``select``, ``dist``, ``ravel``, ``ndimension``, ``nbytes``, ``get_device``, ``resize_``,
``Tensor.softmax``/``log_softmax``, ``nn.DataParallel``, and f-string formatting of tensors."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

X = np.arange(6.0).reshape(2, 3)

CALLS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "select": lambda lib, x: x.select(1, -1),
    "select_row": lambda lib, x: x.select(0, 1),
    "dist": lambda lib, x: x.dist(lib.zeros(2, 3, dtype=lib.float64)),
    "dist_p1_broadcast": lambda lib, x: x.dist(lib.ones(3, dtype=lib.float64), p=1),
    "ravel": lambda lib, x: x.t().ravel(),
    "softmax": lambda lib, x: x.softmax(1),
    "log_softmax_dtype": lambda lib, x: x.float().log_softmax(dim=0, dtype=lib.float64),
    "new_data": lambda lib, x: x.new([1, 2]),
    "new_tensor_arg": lambda lib, x: x.new(lib.tensor([3.0, 4.0], dtype=lib.float64)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_gradients_match_torch(torch_ref: ModuleType, name: str) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        out = CALLS[name](lib, x)
        grad = None
        if out.requires_grad:
            (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
            grad = x.grad.numpy()
        results.append((out.detach().numpy(), str(out.dtype).rsplit(".")[-1], grad))
    (ours, our_dtype, our_grad), (theirs, their_dtype, their_grad) = results
    assert our_dtype == their_dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    if their_grad is not None:
        np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12)


def test_shapes_and_sizes_match_torch(torch_ref: ModuleType) -> None:
    def facts(lib: ModuleType) -> list[Any]:
        x = lib.ones(2, 3, dtype=lib.float64)
        return [x.ndimension(), x.itemsize, x.nbytes, x[:, :2].nbytes, x.get_device(), tuple(x.new(2, 3).shape),
                tuple(x.new().shape), tuple(x.new(lib.Size([4])).shape), str(x.new(1).dtype).rsplit(".")[-1]]

    assert facts(minitorch) == facts(torch_ref)


def test_resize_keeps_the_first_elements_as_torch(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> list[Any]:
        shrink = lib.arange(6.0)
        shrink.resize_(2, 2)
        grow = lib.arange(3.0)
        grow.resize_(5)
        like = lib.arange(4.0)
        like.resize_as_(lib.zeros(2, 2))
        return [shrink.tolist(), tuple(grow.shape), grow[:3].tolist(), like.tolist()]

    assert run(minitorch) == run(torch_ref)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        minitorch.ones(3, requires_grad=True).resize_(4)


def test_variable_is_a_detached_alias(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> list[Any]:
        a = lib.ones(2)
        b = lib.autograd.Variable(a)
        c = lib.autograd.Variable(a, requires_grad=True)
        d = lib.autograd.Variable(c * 2)
        b[0] = 5.0  # shares a's storage
        return [b is a, b.requires_grad, c.requires_grad, a.requires_grad, d.grad_fn is None, d.requires_grad,
                isinstance(a, lib.autograd.Variable), isinstance(3, lib.autograd.Variable), a.tolist()]

    assert run(minitorch) == run(torch_ref)


def test_data_parallel_on_one_device(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> list[Any]:
        lib.manual_seed(0)
        wrapped = lib.nn.DataParallel(lib.nn.Linear(2, 3))
        out = wrapped(lib.ones(4, 2))
        return [repr(wrapped), list(wrapped.state_dict()), tuple(out.shape), type(wrapped.module).__name__,
                wrapped.device_ids, lib.nn.parallel.DataParallel is lib.nn.DataParallel]

    assert run(minitorch) == run(torch_ref)


def test_format_of_tensors_as_torch(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> list[str]:
        loss, vector = lib.tensor(0.25), lib.tensor([1.0, 2.0])
        param = lib.nn.Parameter(lib.tensor(1.5))
        with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
            f"{vector:.2f}"
        with pytest.raises(TypeError):
            lib.ones(2).new(lib.tensor([1, 2]))  # another dtype
        return [f"{loss}", f"{loss:.3f}", f"{loss:>8.2f}", f"{vector}", f"{param}"]

    assert run(minitorch) == run(torch_ref)


def test_byte_is_uint8_as_torch(torch_ref) -> None:
    values = [[-1.5, 0.0, 2.7, 255.0]]
    ours, theirs = minitorch.tensor(values).byte(), torch_ref.tensor(values).byte()
    assert ours.tolist() == theirs.tolist() and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
