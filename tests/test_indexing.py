"""gather, scatter_add and index_select (the backend's gather/scatter primitives) against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_same_error, compare_with_torch, ours, values

import minitorch
from minitorch.ops.indexing import gather, index_select, scatter_add

task = pytest.mark.task("5.7")


@task
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_matches_torch(backend: str, torch_ref, dim: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5))
    index = rng.integers(0, a.shape[dim], size=(3, 4))
    compare_with_torch(torch_ref, lambda x, i: gather(x, dim, i), lambda x, i: torch_ref.gather(x, dim, i), [a, index], grad=[0])


@task
def test_gather_of_a_permuted_input_with_expanded_index(backend: str, torch_ref) -> None:
    a = np.random.default_rng(1).standard_normal((5, 4))
    rows = np.array([[3], [0], [3]])
    compare_with_torch(
        torch_ref,
        lambda x, i: gather(x.t(), 1, i.expand(3, 2)),
        lambda x, i: torch_ref.gather(x.t(), 1, i.expand(3, 2)),
        [a, rows], grad=[0],
    )


@task
def test_scatter_add_matches_torch_with_repeated_targets(backend: str, torch_ref) -> None:
    rng = np.random.default_rng(2)
    base, src = rng.standard_normal((3, 4)), rng.standard_normal((3, 6))
    index = np.array([[0, 1, 1, 3, 3, 3], [2, 2, 2, 2, 0, 0], [1, 0, 3, 2, 1, 0]])
    compare_with_torch(
        torch_ref,
        lambda b, i, s: scatter_add(b, 1, i, s),
        lambda b, i, s: torch_ref.scatter_add(b, 1, i, s),
        [base, index, src], grad=[0, 2],
    )


@task
def test_index_select_matches_torch(backend: str, torch_ref) -> None:
    a = np.random.default_rng(3).standard_normal((4, 3, 2))
    index = np.array([3, 0, 3, 1])
    columns = np.array([2, 2, 0])
    compare_with_torch(
        torch_ref, lambda x, i: index_select(x, 1, i), lambda x, i: torch_ref.index_select(x, 1, i), [a, columns], grad=[0]
    )
    compare_with_torch(torch_ref, lambda x, i: index_select(x, 0, i), lambda x, i: torch_ref.index_select(x, 0, i), [a, index], grad=[0])


@task
def test_gather_and_scatter_gradcheck(backend: str) -> None:
    rng = np.random.default_rng(4)
    a = ours(rng.standard_normal((3, 4)), grad=True)
    index = minitorch.tensor([[0, 3, 3], [1, 1, 2]])
    gradcheck(lambda x: gather(x, 1, index), a)
    src = ours(rng.standard_normal((2, 3)), grad=True)
    gradcheck(lambda b, s: scatter_add(b, 1, index, s), a, src)


@task
def test_gather_errors_match_torch(torch_ref) -> None:
    a = np.zeros((3, 4))
    bad = np.array([[0, 4]])
    assert_same_error(lambda: gather(ours(a), 1, ours(bad)), lambda: torch_ref.gather(torch_ref.tensor(a), 1, torch_ref.tensor(bad)))
    with pytest.raises(RuntimeError, match="int32/int64"):
        gather(ours(a), 1, ours(a))
    with pytest.raises(IndexError, match="index out of range in self"):
        index_select(ours(a), 0, minitorch.tensor([3]))


@task
def test_gather_on_float32_and_int(backend: str) -> None:
    a = minitorch.arange(12).view(3, 4)
    out = gather(a, 0, minitorch.tensor([[2, 0, 1, 2]]))
    assert out.dtype is minitorch.int64
    assert out.tolist() == [[8, 1, 6, 11]]
    f = gather(a.float(), 0, minitorch.tensor([[2, 0, 1, 2]]))
    np.testing.assert_array_equal(values(f), [[8, 1, 6, 11]])


def test_plain_int_and_slice_keys_give_numpys_views_on_strided_tensors() -> None:
    """Keys of Python ints and step-1 slices (x[i], x[:, a:b], narrow, split, unbind) take a short
    path past the general parser: the same elements, shapes and strides as NumPy's views, on a
    base that is a permuted slice with an offset."""
    base = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
    array = base.transpose(2, 0, 1)[1:, :, 1:]  # (5, 4, 4), strided, not at the storage's start
    tensor = minitorch.tensor(base).permute(2, 0, 1)[1:, :, 1:]
    keys = [0, -1, 4, -5, slice(None), slice(1, 3), slice(-2, None), slice(3, 1), slice(None, 100), (slice(None), 2),
            (1, slice(0, 2)), (slice(None), slice(None), 3), (-2, -1, -4), (slice(2, 2), 0), (2, slice(None), slice(1, 2))]
    for key in keys:
        mine, expected = tensor[key], array[key]
        assert mine.shape == expected.shape, key
        np.testing.assert_array_equal(mine.numpy(), expected)
        assert tuple(mine.stride()) == tuple(s // 8 for s in expected.strides) or expected.size <= 1, key
    for key in (5, -6, (0, 4), (slice(None), slice(None), -5)):
        with pytest.raises(IndexError, match="out of bounds"):
            tensor[key]
    with pytest.raises(IndexError, match="too many indices"):
        tensor[0, 0, 0, 0]
