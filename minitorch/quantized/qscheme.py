"""Quantization schemes: how a quantized tensor maps its integers back to real values."""

from __future__ import annotations

from typing import Any


class qscheme:  # noqa: N801 - PyTorch's spelling
    """A quantization scheme, e.g. ``minitorch.per_tensor_affine``.

    *Affine*: :math:`x \\approx s\\,(q - z)` with a scale :math:`s` and an integer zero point
    :math:`z`. *Symmetric*: the same with :math:`z` fixed at the middle of the integer range,
    so that :math:`x = 0` is exact and the range is balanced around it. *Per tensor*: one
    :math:`(s, z)` for the whole tensor; *per channel*: one pair for each index along an axis.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def per_channel(self) -> bool:
        return self.name.startswith("per_channel")

    @property
    def symmetric(self) -> bool:
        return self.name.endswith("symmetric")

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __copy__(self) -> "qscheme":
        return self  # one object per scheme: copies compare with ``is``

    def __deepcopy__(self, memo: dict) -> "qscheme":
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (named_qscheme, (self.name,))


per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")

ALL_QSCHEMES = (per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric,
                per_channel_affine_float_qparams)
_BY_NAME = {s.name: s for s in ALL_QSCHEMES}


def named_qscheme(name: str) -> qscheme:
    """The scheme called ``name``, or ValueError."""
    if name not in _BY_NAME:
        raise ValueError(f"unknown quantization scheme {name!r}; the schemes are {', '.join(_BY_NAME)}")
    return _BY_NAME[name]
