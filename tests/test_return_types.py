"""``max(dim)``, ``min(dim)``, ``sort``, ``topk``, ``median(dim)`` return PyTorch's named tuples."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

import minitorch

CALLS: dict[str, Callable[[Any], Any]] = {
    "max": lambda t: t.max(1),
    "min": lambda t: t.min(0, keepdim=True),
    "sort": lambda t: t.sort(descending=True),
    "topk": lambda t: t.topk(2),
    "median": lambda t: t.median(1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_result_prints_and_unpacks_as_torch(name: str, torch_ref: ModuleType) -> None:
    seen = []
    for lib in (minitorch, torch_ref):
        result = CALLS[name](lib.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 6.0]]))
        values, indices = result
        seen.append((repr(result).replace("minitorch.", "torch."), type(result).__name__, values.tolist(),
                     indices.tolist(), result.values.tolist(), result[1].tolist(), isinstance(result, tuple)))
    assert seen[0] == seen[1]
    assert seen[0][0].startswith(f"torch.return_types.{name}(\nvalues=")
