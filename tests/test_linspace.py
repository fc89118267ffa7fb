"""``linspace`` bit for bit as PyTorch's CPU kernel: the first half counted up from ``start``,
the second down from ``end``, each multiply-add rounded once, in every dtype."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch

RNG = np.random.default_rng(5)
CASES = [(0.5, 1.5, 56), (0, 1, 10), (-3, 7, 11), (0.1, 0.9, 7), (1e-3, 5.5, 1000), (3, -2, 13), (0, 1, 2), (2, 2, 5),
         (5, 9, 1), (1, 2, 0), (0, 1, 100000)]
CASES += [(float(RNG.normal() * 10), float(RNG.normal() * 10), int(RNG.integers(2, 3000))) for _ in range(40)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16"])
def test_linspace_is_bit_equal_to_torch(dtype: str, torch_ref: ModuleType) -> None:
    for start, end, steps in CASES:
        ours = minitorch.linspace(start, end, steps, dtype=getattr(minitorch, dtype))
        theirs = torch_ref.linspace(start, end, steps, dtype=getattr(torch_ref, dtype))
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        # bfloat16 read as float32, which holds every bfloat16 exactly (NumPy has no bfloat16)
        ours, theirs = (t.float().numpy() if dtype == "bfloat16" else t.numpy() for t in (ours, theirs))
        np.testing.assert_array_equal(ours, theirs, err_msg=f"linspace({start}, {end}, {steps}, dtype={dtype})")


def test_linspace_ends_exactly_at_both_ends() -> None:
    values = minitorch.linspace(0.1, 0.7, 1001, dtype=minitorch.float64).numpy()
    assert values[0] == 0.1 and values[-1] == 0.7
    assert np.all(np.diff(values) > 0)
