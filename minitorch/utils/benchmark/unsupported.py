"""PyTorch's benchmark fuzzers, which minitorch does not have: each raises a clear error when made."""

from __future__ import annotations

from typing import Any


class _NotInMinitorch:
    """Constructing one raises ``NotImplementedError`` naming the class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"torch.utils.benchmark.{type(self).__name__} is not implemented in minitorch: its benchmark module "
            "times given statements (Timer, Measurement, Compare) but does not generate random inputs"
        )


class Fuzzer(_NotInMinitorch):
    """PyTorch's generator of random benchmark inputs (not implemented)."""


class FuzzedParameter(_NotInMinitorch):
    """A random parameter of a :class:`Fuzzer` (not implemented)."""


class FuzzedTensor(_NotInMinitorch):
    """A random tensor of a :class:`Fuzzer` (not implemented)."""


class FuzzedSparseTensor(_NotInMinitorch):
    """A random sparse tensor of a :class:`Fuzzer` (not implemented)."""


class ParameterAlias(_NotInMinitorch):
    """A :class:`Fuzzer` parameter that copies another (not implemented)."""
