"""Shapes and strides of indexing results on a contiguous tensor, PyTorch as the oracle.

Code written for PyTorch relies on them: ``x[:, idx].view(-1)`` works there because the
result of an advanced index is row-major, and ``x[None].stride()`` spans the next dimension
as ``unsqueeze`` does. (Results of elementwise ops on permuted views are row-major here, not
in the input's order as in PyTorch: the one difference docs/api/tensor.md names.)
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch

VALUES = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)

KEYS = [
    "x[None]", "x[None, None]", "x[0, None, :]", "x[:, None]", "x[..., None]", "x[1:, None, ::2]",
    "x[None, 1, None]", "x[:, :, None, 2]", "x[None, ..., None]", "x[:, None, 1:3, None]", "x[2, None]",
    "x[:, i]", "x[:, :, i]", "x[..., i]", "x[i, :, i]", "x[:, i, i]", "x[:, i, :2]", "x[:, :2, i]",
    "x[1, :, i]", "x[i, 1]", "x[:, [[0], [1]], i]", "x[x > 30]", "x[:, i][None]",
]


def _layout(lib: ModuleType, key: str) -> tuple:
    x = lib.tensor(VALUES)
    out = eval(key, {"x": x, "i": lib.tensor([0, 2])})  # noqa: S307 - the fixed keys above
    return tuple(out.shape), tuple(out.stride()), out.is_contiguous(), out.reshape(-1).tolist()


@pytest.mark.parametrize("key", KEYS)
def test_an_indexing_result_is_laid_out_as_pytorchs(key: str, torch_ref: ModuleType) -> None:
    assert _layout(minitorch, key) == _layout(torch_ref, key)


def test_an_advanced_index_result_can_be_viewed(torch_ref: ModuleType) -> None:
    for lib in (torch_ref, minitorch):
        x = lib.tensor(VALUES, requires_grad=True)
        flat = x[:, lib.tensor([0, 2])].view(-1)
        (flat * lib.arange(flat.shape[0], dtype=lib.float32)).sum().backward()
        assert x.grad is not None
    # the gradient lands where the picked rows were, weighted by their place in the flat view
    expected = np.zeros_like(VALUES)
    expected[:, [0, 2]] = np.arange(30, dtype=np.float32).reshape(3, 2, 5)
    np.testing.assert_array_equal(x.grad.numpy(), expected)
