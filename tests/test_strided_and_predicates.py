"""``as_strided``, ``broadcast_tensors``, dtype questions, ``data_ptr`` and the thread and
matmul-precision settings, PyTorch as the oracle."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

#: (size, stride, storage offset) over a storage of 12 elements; overlapping windows included
LAYOUTS = [
    ((2, 2), (1, 2), 1),
    ((3, 4), (4, 1), 0),
    ((4, 3), (1, 4), None),
    ((5, 3), (2, 1), 0),      # windows of 3 sliding by 2: overlapping reads
    ((4, 4), (1, 1), 2),      # windows sliding by one
    ((3,), (0,), 5),          # one element read three times
    ((0, 3), (1, 1), 11),     # no elements
    ((2, 1, 3), (6, 7, 2), 0),
]


def _strided(lib: ModuleType, size: Any, stride: Any, offset: Any) -> tuple[list, list]:
    x = lib.arange(12, dtype=lib.float64, requires_grad=True)
    y = x.as_strided(size, stride) if offset is None else x.as_strided(size, stride, offset)
    weights = lib.arange(y.numel(), dtype=lib.float64).reshape(y.shape) + 1
    (y * weights).sum().backward()
    return y.tolist(), x.grad.tolist()


@pytest.mark.parametrize(("size", "stride", "offset"), LAYOUTS, ids=repr)
def test_as_strided_reads_and_differentiates_as_torch(size: Any, stride: Any, offset: Any, torch_ref: ModuleType) -> None:
    assert _strided(minitorch, size, stride, offset) == _strided(torch_ref, size, stride, offset)


def test_as_strided_counts_the_offset_from_the_storage_and_is_a_view(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        base = lib.arange(12.0)
        tail = base[4:]  # storage offset 4
        y = tail.as_strided((2, 2), (2, 1))  # from the tail's own offset
        z = tail.as_strided((2,), (1,), 0)  # from the storage's start
        y.mul_(10)
        results.append((y.tolist(), z.tolist(), base.tolist(), y._is_view()))
    assert results[0] == results[1]


def test_second_derivative_through_as_strided_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([0.5, -1.0, 2.0, 1.5, 0.25], dtype=lib.float64, requires_grad=True)
        windows = x.as_strided((3, 3), (1, 1))
        (grad,) = lib.autograd.grad((windows**3).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((grad * grad).sum(), x)
        results.append((grad.tolist(), second.tolist()))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize(("size", "stride", "offset", "message"), [
    ((3,), (5,), 3, "out of bounds"),
    ((13,), (1,), 0, "out of bounds"),
    ((2,), (-1,), 2, "Negative strides"),
    ((2,), (1,), -1, "invalid storage offset"),
    ((2, 2), (1,), 0, "mismatch in length"),
])
def test_as_strided_refuses_a_view_outside_the_storage(size: Any, stride: Any, offset: int, message: str,
                                                         torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError, match=message):
            lib.arange(12.0).as_strided(size, stride, offset)


def test_as_strided_of_a_non_contiguous_tensor_that_requires_grad_says_what_it_lacks() -> None:
    x = minitorch.arange(12.0).reshape(3, 4).t().requires_grad_()
    with pytest.raises(NotImplementedError, match="contiguous"):
        x.as_strided((2,), (1,))
    assert x.detach().as_strided((2,), (4,)).tolist() == [0.0, 4.0]  # without grad it reads the storage


@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [(5,), (2, 1), (1, 1, 1)], [(), (4,)], [(0, 3), (1,)], [3, (2, 1)]],
                         ids=repr)
def test_broadcast_shapes_and_tensors_as_torch(shapes: list, torch_ref: ModuleType) -> None:
    assert tuple(minitorch.broadcast_shapes(*shapes)) == tuple(torch_ref.broadcast_shapes(*shapes))
    arrays = [np.arange(int(np.prod(s)), dtype=np.float32).reshape(s) for s in shapes]
    ours = minitorch.broadcast_tensors(*[minitorch.tensor(a) for a in arrays])
    theirs = torch_ref.broadcast_tensors(*[torch_ref.tensor(a) for a in arrays])
    assert [(t.tolist(), t._is_view()) for t in ours] == [(t.tolist(), t._is_view()) for t in theirs]


def test_broadcast_shapes_that_do_not_broadcast_raise(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError):
            lib.broadcast_shapes((2,), (3,))


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def test_dtype_questions_as_torch(torch_ref: ModuleType) -> None:
    def answers(lib: ModuleType) -> list:
        kinds = [getattr(lib, name) for name in DTYPES]
        out: list[Any] = []
        for a in kinds:
            t = lib.zeros(2, dtype=a)
            out.append((t.is_signed(), lib.is_signed(t), t.is_complex(), lib.is_complex(t), t.is_cpu))
            for b in kinds:
                out.append((lib.can_cast(a, b), str(lib.promote_types(a, b)).rsplit(".", 1)[-1]))
                out.append(str(lib.result_type(lib.zeros(2, dtype=a), lib.zeros((), dtype=b))).rsplit(".", 1)[-1])
            for number in (True, 3, 2.5):
                out.append(str(lib.result_type(lib.zeros(2, dtype=a), number)).rsplit(".", 1)[-1])
        out.append(str(lib.result_type(2, 3.0)).rsplit(".", 1)[-1])
        return out

    assert answers(minitorch) == answers(torch_ref)


def test_is_nonzero_and_is_same_size_as_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        assert lib.is_nonzero(lib.tensor([2.0])) and not lib.tensor(0).is_nonzero()
        for values, message in (([1, 2], "more than one value"), ([], "no values")):
            with pytest.raises(RuntimeError, match=message):
                lib.is_nonzero(lib.tensor(values))
        assert lib.is_same_size(lib.zeros(2, 3), lib.ones(2, 3)) and not lib.zeros(2, 3).is_same_size(lib.zeros(3, 2))


def test_data_ptr_tells_where_the_first_element_is() -> None:
    x = minitorch.arange(12, dtype=minitorch.float32).reshape(3, 4)
    start = x.numpy().__array_interface__["data"][0]
    assert x.data_ptr() == start and x.view(-1).data_ptr() == start
    assert x[1, 2].data_ptr() - start == (1 * 4 + 2) * 4
    assert x.t()[2].data_ptr() - start == 2 * 4
    assert x.clone().data_ptr() != start and x.detach().data_ptr() == start
    assert minitorch.empty(0).data_ptr() == 0


def test_method_spellings_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        a = lib.tensor([[1.0, -2.0], [3.0, -4.0]])
        b = a.addmm(a, a.t(), beta=0.5, alpha=2.0)
        c = a.subtract(a.t(), alpha=2)
        d = a.absolute()
        a.absolute_()
        results.append((b.tolist(), c.tolist(), d.tolist(), a.tolist()))
    assert results[0] == results[1]


def test_set_num_threads_changes_what_the_kernels_use() -> None:
    before = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        assert minitorch.get_num_threads() == 1
        a = minitorch.rand(512, 512)
        np.testing.assert_allclose((a @ a).numpy(), a.numpy().astype(np.float64) @ a.numpy(), rtol=1e-4)
        with pytest.warns(UserWarning, match="pool has"):
            minitorch.set_num_threads(10**6)
        assert minitorch.get_num_threads() >= 1
        for bad in (0, -2, 1.5, True):
            with pytest.raises(RuntimeError, match="positive integer"):
                minitorch.set_num_threads(bad)
    finally:
        minitorch.set_num_threads(before)


def test_float32_matmul_precision_as_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        before = lib.get_float32_matmul_precision()
        try:
            assert before == "highest"
            lib.set_float32_matmul_precision("high")
            assert lib.get_float32_matmul_precision() == "high"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lib.set_float32_matmul_precision("low")
            assert any("no effect" in str(w.message) for w in caught)
            assert lib.get_float32_matmul_precision() == "high"
        finally:
            lib.set_float32_matmul_precision(before)
