"""The named tuples that ``max(dim)``, ``min(dim)``, ``sort``, ``topk``, ``median(dim)``, ``kthvalue``,
``cummax`` and ``aminmax`` (and their kin) return.

Each prints as PyTorch's ``torch.return_types.topk(values=..., indices=...)``, one field per
line, and unpacks as a plain ``(values, indices)`` tuple.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

FIELDS = ("values", "indices")


def _named_result(name: str, fields: tuple[str, ...] = FIELDS) -> type:
    """A named tuple of ``fields`` (``(values, indices)`` by default) called ``name`` with PyTorch's repr."""
    base = namedtuple(name, fields)  # type: ignore[misc]

    def __repr__(self: Any) -> str:
        lines = ",\n".join(f"{field}={getattr(self, field)!r}" for field in fields)
        return f"{__name__.split('.')[0]}.return_types.{name}(\n{lines})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": __name__})


max = _named_result("max")  # noqa: A001 - PyTorch's names
min = _named_result("min")  # noqa: A001
sort = _named_result("sort")
topk = _named_result("topk")
median = _named_result("median")
nanmedian = _named_result("nanmedian")
kthvalue = _named_result("kthvalue")
cummax = _named_result("cummax")
cummin = _named_result("cummin")
aminmax = _named_result("aminmax", ("min", "max"))
mode = _named_result("mode")
frexp = _named_result("frexp", ("mantissa", "exponent"))
