"""How reductions read their ``dim`` argument (None, one dim, several, an empty list), PyTorch as the oracle.

PyTorch's ``sum``, ``mean``, ``var``, ``amax``... read an empty list of dims as all of them
(``x.sum(())`` is a 0-d sum), while ``all`` and ``any`` reduce nothing there; both take a tuple.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

OPS = ["sum", "mean", "var", "std", "amax", "amin", "nansum", "count_nonzero", "all", "any"]
DIMS: list[Any] = [None, (), [], 1, -1, (0, 2), (2, 0), [0, 1, 2], (-1,)]
#: mixed signs, zeros (for all/any/count_nonzero), one row of ones
VALUES = np.round(np.random.default_rng(3).normal(size=(2, 3, 4)), 1).astype(np.float32)
VALUES[0, 1] = 0.0
VALUES[1, 2] = 1.0


def _reduce(lib: ModuleType, op: str, dim: Any, keepdim: bool) -> tuple[tuple[int, ...], str, np.ndarray]:
    method = getattr(lib.tensor(VALUES), op)
    if dim is None:  # PyTorch's sum() and mean() take no keepdim without a dim
        out = method()
    else:
        out = method(dim) if op == "count_nonzero" else method(dim, keepdim=keepdim)
    return tuple(out.shape), str(out.dtype).rsplit(".", 1)[-1], out.double().numpy()


# count_nonzero takes no keepdim, and None takes none here: one case each
CASES = [(op, dim, keepdim) for op in OPS for dim in DIMS for keepdim in (False, True)
         if not (keepdim and (dim is None or op == "count_nonzero"))]


@pytest.mark.parametrize(("op", "dim", "keepdim"), CASES, ids=repr)
def test_a_reduction_reads_dims_as_pytorch(op: str, dim: Any, keepdim: bool, torch_ref: ModuleType) -> None:
    shape, dtype, values = _reduce(minitorch, op, dim, keepdim)
    expected_shape, expected_dtype, expected = _reduce(torch_ref, op, dim, keepdim)
    assert (shape, dtype) == (expected_shape, expected_dtype)
    np.testing.assert_allclose(values, expected, rtol=1e-5, atol=1e-6)


def test_sum_over_an_empty_list_of_dims_has_the_gradient_of_the_whole_sum(torch_ref: ModuleType) -> None:
    grads = []
    for lib in (torch_ref, minitorch):
        x = lib.tensor(VALUES, requires_grad=True)
        (x.sum(()) * 3).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[1], np.full(VALUES.shape, 3.0, np.float32))
