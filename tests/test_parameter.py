"""Task 4.1: ``nn.Parameter`` — a leaf Tensor subclass sharing its data's storage."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import nn


@pytest.mark.task("4.1")
def test_parameter_is_a_tensor_that_requires_grad() -> None:
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    assert isinstance(p, minitorch.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad is None
    assert p.shape == (2,) and p.dtype == minitorch.float32


@pytest.mark.task("4.1")
def test_parameter_shares_storage_with_its_data() -> None:
    data = minitorch.zeros(3)
    p = nn.Parameter(data)
    data.fill_(2.0)
    np.testing.assert_array_equal(p.detach().numpy(), [2.0, 2.0, 2.0])
    with minitorch.no_grad():
        p.add_(1.0)
    np.testing.assert_array_equal(data.numpy(), [3.0, 3.0, 3.0])


@pytest.mark.task("4.1")
def test_parameter_repr_matches_torch(torch_ref: Any) -> None:
    values = [[1.5, -2.0], [0.25, 3.0]]
    assert repr(nn.Parameter(minitorch.tensor(values))) == repr(torch_ref.nn.Parameter(torch_ref.tensor(values)))
    assert repr(nn.Parameter()) == repr(torch_ref.nn.Parameter())
    frozen = nn.Parameter(minitorch.tensor([1, 2]), requires_grad=False)
    assert repr(frozen) == repr(torch_ref.nn.Parameter(torch_ref.tensor([1, 2]), requires_grad=False))
    assert repr(frozen).startswith("Parameter containing:\n")


@pytest.mark.task("4.1")
def test_integer_parameter_cannot_require_grad() -> None:
    with pytest.raises(RuntimeError) as info:
        nn.Parameter(minitorch.tensor([1, 2]))
    if isinstance(info.value, NotImplementedError):  # a stubbed task is not this error
        raise info.value
    assert "floating point" in str(info.value)


@pytest.mark.task("4.1")
def test_operations_on_a_parameter_give_plain_tensors_and_gradients_reach_it() -> None:
    p = nn.Parameter(minitorch.tensor([1.0, 2.0, 3.0]))
    y = (p * p).sum()
    assert type(y) is minitorch.Tensor and type(p.detach()) is minitorch.Tensor
    y.backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 4.0, 6.0])


@pytest.mark.task("4.1")
def test_parameter_rejects_non_tensor() -> None:
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


@pytest.mark.task("4.1")
def test_deepcopy_makes_an_independent_parameter() -> None:
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    p.grad = minitorch.ones(2)
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q is not p and q.requires_grad
    with minitorch.no_grad():
        q.fill_(0.0)
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(q.grad.numpy(), [1.0, 1.0])


@pytest.mark.task("4.1")
def test_deepcopy_of_a_module_keeps_sharing_inside_the_copy() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model[1].weight = model[0].weight
    clone = copy.deepcopy(model)
    assert clone[1].weight is clone[0].weight and clone[0].weight is not model[0].weight
    assert [n for n, _ in clone.named_parameters()] == [n for n, _ in model.named_parameters()]
