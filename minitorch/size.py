"""``Size``: a tensor's shape, a tuple with PyTorch's repr."""

from __future__ import annotations

from functools import reduce
from operator import mul


class Size(tuple):
    """The shape of a tensor: ``minitorch.Size([2, 3])`` is the tuple ``(2, 3)``."""

    #: the package that exports it, as PyTorch names its public classes (``<class 'minitorch.Size'>``)
    __module__ = "minitorch"

    def numel(self) -> int:
        """Number of elements a tensor of this shape holds."""
        return reduce(mul, self, 1)

    def __repr__(self) -> str:
        return f"minitorch.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        result = super().__getitem__(key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other: tuple) -> "Size":  # type: ignore[override]
        return Size(tuple(self) + tuple(other))
