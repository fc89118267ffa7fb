"""``torch.tensor`` of a NumPy number keeps the number's dtype (``np.float64(x)`` is a float64
tensor, not one of the default dtype), as PyTorch does; compared with PyTorch at run time."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

NUMPY_NUMBERS = [np.float64(0.1), np.float32(0.5), np.float16(2.5), np.int64(-3), np.int32(7), np.int16(5),
                 np.int8(-2), np.uint8(200), np.bool_(True)]


@pytest.mark.parametrize("number", NUMPY_NUMBERS, ids=lambda n: type(n).__name__)
@pytest.mark.parametrize("make", ["tensor", "as_tensor"])
def test_a_numpy_number_keeps_its_dtype(number: np.generic, make: str) -> None:
    ours, theirs = getattr(minitorch, make)(number), getattr(torch, make)(number)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.shape == tuple(theirs.shape) == ()
    assert ours.item() == theirs.item()


def test_an_explicit_dtype_still_wins() -> None:
    ours = minitorch.tensor(np.float64(0.1), dtype=minitorch.float32)
    assert ours.dtype is minitorch.float32
    assert ours.item() == torch.tensor(np.float64(0.1), dtype=torch.float32).item()
