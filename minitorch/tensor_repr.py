"""``repr(tensor)`` in PyTorch's layout: ``tensor([[1., 2.], ...], requires_grad=True)``.

Floats print with 4 decimals (or in scientific notation when the magnitudes span more than
three decades), integral floats as ``1.``, every element padded to one width, large
tensors summarised with ``...``. Never a memory address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from . import dtypes

if TYPE_CHECKING:
    from .tensor import Tensor

PRECISION = 4
LINE_WIDTH = 80
SUMMARY_THRESHOLD = 1000
EDGE_ITEMS = 3
#: above this largest magnitude, or a max/min ratio above SCI_RATIO, use scientific notation
SCI_MAX = 1e8
SCI_MIN = 1e-4
SCI_RATIO = 1000.0
PREFIX = "tensor("


def _float_formatter(values: np.ndarray) -> Callable[[float], str]:
    finite = np.abs(values[np.isfinite(values)].astype(np.float64))
    nonzero = finite[finite != 0]
    integral = bool(np.all(np.ceil(finite) == finite))
    if nonzero.size == 0:
        fmt: Callable[[float], str] = lambda v: f"{v:.0f}."
    elif integral:
        if nonzero.max() > SCI_MAX:
            fmt = lambda v: f"{v:.{PRECISION}e}"
        else:
            fmt = lambda v: f"{v:.0f}."
    elif nonzero.max() / nonzero.min() > SCI_RATIO or nonzero.max() > SCI_MAX or nonzero.min() < SCI_MIN:
        fmt = lambda v: f"{v:.{PRECISION}e}"
    else:
        fmt = lambda v: f"{v:.{PRECISION}f}"

    def format_one(v: float) -> str:
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return fmt(float(v))

    return format_one


def _formatter(values: np.ndarray, dtype: dtypes.dtype) -> Callable[[object], str]:
    if dtype is dtypes.bool_:
        base: Callable[[object], str] = lambda v: "True" if v else "False"
    elif dtype.is_floating_point:
        base = _float_formatter(values)  # type: ignore[assignment]
    else:
        base = lambda v: str(int(v))  # type: ignore[arg-type]
    sample = values.reshape(-1)
    if sample.size > SUMMARY_THRESHOLD:
        sample = np.concatenate([sample[:EDGE_ITEMS * 50], sample[-EDGE_ITEMS * 50:]])
    width = max((len(base(v)) for v in sample), default=0)
    return lambda v: base(v).rjust(width)


def tensor_repr(t: "Tensor") -> str:
    values = t.detach()._host_numpy()
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device if t.device.index is not None else str(t.device) + ':0'}'")
    if values.size == 0:
        body = "[]"
        if t.dim() != 1:
            suffixes.append(f"size=({', '.join(str(s) for s in t.shape)}{',' if t.dim() == 1 else ''})")
    else:
        fmt = _formatter(values, t.dtype)
        body = np.array2string(
            values, max_line_width=LINE_WIDTH, separator=", ", prefix=PREFIX,
            formatter={"all": fmt}, threshold=SUMMARY_THRESHOLD, edgeitems=EDGE_ITEMS,
        )
    if t.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_):
        suffixes.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return PREFIX + ", ".join([body] + suffixes) + ")"
