"""Pinned host memory: ``Tensor.pin_memory``/``is_pinned`` and ``DataLoader(pin_memory=True)``,
with an accelerator (the CUDA simulator the suite runs under) and without one (as torch's CPU
build behaves)."""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
import pytest

import minitorch
from minitorch import accelerator
from minitorch.utils.data import DataLoader, TensorDataset


def test_pinned_copies_and_their_views(small_cuda: None) -> None:
    x = minitorch.arange(6.0).reshape(2, 3)
    pinned = x.pin_memory()
    assert pinned.is_pinned() and pinned[1].is_pinned() and not x.is_pinned()
    assert pinned.pin_memory() is pinned and pinned.device == x.device
    np.testing.assert_array_equal(pinned.numpy(), x.numpy())
    np.testing.assert_array_equal(pinned.to("cuda", non_blocking=True).cpu().numpy(), x.numpy())
    assert not (pinned + 1).is_pinned()  # a result is ordinary memory
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        x.to("cuda").pin_memory()


def test_data_loader_pins_every_tensor_of_a_batch(small_cuda: None) -> None:
    data = TensorDataset(minitorch.arange(10.0).reshape(5, 2), minitorch.arange(5))
    batches = list(DataLoader(data, batch_size=2, pin_memory=True))
    assert [len(b[0]) for b in batches] == [2, 2, 1]
    assert all(t.is_pinned() for batch in batches for t in batch)
    dicts = list(DataLoader([{"x": minitorch.ones(2)}] * 3, batch_size=3, pin_memory=True))
    assert dicts[0]["x"].is_pinned()


def test_without_an_accelerator_as_torch_cpu(torch_ref: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accelerator, "is_available", lambda: False)
    with pytest.raises(RuntimeError) as theirs:
        torch_ref.ones(2).pin_memory()
    with pytest.raises(RuntimeError) as ours:
        minitorch.ones(2).pin_memory()
    assert str(ours.value) == str(theirs.value)
    assert not minitorch.ones(2).is_pinned()
    seen = []
    for lib in (minitorch, torch_ref):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = list(lib.utils.data.DataLoader([1, 2, 3], batch_size=2, pin_memory=True))
        seen.append(([b.tolist() for b in batches], [str(w.message) for w in caught]))
    assert seen[0] == seen[1]
