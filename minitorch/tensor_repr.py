"""``repr(tensor)`` in PyTorch's layout: ``tensor([[1., 2.], ...], requires_grad=True)``.

The rules, as PyTorch applies them:

* Over ``threshold`` elements the tensor is *summarised*: along every dimension longer than
  ``2 * edgeitems`` only the first and last ``edgeitems`` entries are shown, with ``...``
  between them.
* One formatter serves every element, and it is chosen from the elements **shown** (the
  summary), never from the hidden ones. For floats it looks at the finite, nonzero values:
  scientific notation when the largest magnitude exceeds :data:`SCI_LARGEST`, the smallest
  is below :data:`SCI_SMALLEST`, or their ratio exceeds :data:`SCI_SPREAD`; otherwise
  all integral prints ``1.`` (``int mode``), any other ``precision`` decimals.
  ``set_printoptions(sci_mode=...)`` overrides the choice.
* Every element is right-aligned to the widest finite nonzero element (at least 1);
  zeros, ``nan`` and ``inf`` do not count toward the width.
* A row holds :math:`\\lfloor (\\text{linewidth} - \\text{indent}) / (\\text{width} + 2) \\rfloor`
  elements (the 2 is ``", "``); dimensions are separated by ``dim - 1`` blank lines.
* Suffixes (``device=``, ``size=``, ``dtype=``, ``grad_fn=``/``requires_grad=``) follow the
  closing bracket and move to their own line when the current line would pass ``linewidth``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Optional, Union

import numpy as np

from . import dtypes

if TYPE_CHECKING:
    from .tensor import Tensor

PREFIX = "tensor("
#: floats print in scientific notation when the largest shown magnitude is above this ...
SCI_LARGEST = 1.0e8
#: ... or the smallest nonzero magnitude is below this ...
SCI_SMALLEST = 1.0e-4
#: ... or the largest and smallest nonzero magnitudes are more than this factor apart
SCI_SPREAD = 1000.0
#: ``", "`` between elements
SEPARATOR_WIDTH = 2


@dataclass
class PrintOptions:
    """The knobs of :func:`set_printoptions`, with PyTorch's defaults."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: Optional[bool] = None


PROFILES: dict[str, PrintOptions] = {
    "default": PrintOptions(),
    "short": PrintOptions(precision=2, edgeitems=2),
    "full": PrintOptions(threshold=math.inf),
}

_OPTIONS = PrintOptions()


def set_printoptions(
    precision: Optional[int] = None,
    threshold: Optional[float] = None,
    edgeitems: Optional[int] = None,
    linewidth: Optional[int] = None,
    profile: Optional[str] = None,
    sci_mode: Optional[bool] = None,
) -> None:
    """Set how tensors print, as ``torch.set_printoptions``.

    ``profile`` (``"default"``, ``"short"``, ``"full"``) resets the four numeric options first;
    the other arguments then override it. ``sci_mode`` is always assigned: ``None`` means
    "choose automatically".
    """
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"set_printoptions(): profile must be one of {sorted(PROFILES)}, got {profile!r}")
        chosen = PROFILES[profile]
        _OPTIONS.precision = chosen.precision
        _OPTIONS.threshold = chosen.threshold
        _OPTIONS.edgeitems = chosen.edgeitems
        _OPTIONS.linewidth = chosen.linewidth
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Union[int, float, Optional[bool]]]:
    """The current print options as a dict (``torch._tensor_str.get_printoptions``)."""
    return asdict(_OPTIONS)


class ElementFormatter:
    """Formats every element of one tensor to a common width, chosen from ``shown`` values."""

    def __init__(self, shown: np.ndarray, dtype: dtypes.dtype) -> None:
        self.floating = dtype.is_floating_point
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = shown.reshape(-1)
        if not self.floating:
            self.width = max([self.width] + [len(self._plain(v)) for v in flat.tolist()])
        else:
            self._choose_float_mode(flat.astype(np.float64))

    @staticmethod
    def _plain(value: object) -> str:
        return str(value)

    def _choose_float_mode(self, flat: np.ndarray) -> None:
        candidates = flat[np.isfinite(flat) & (flat != 0)]
        if candidates.size == 0:
            return
        magnitudes = np.abs(candidates)
        largest, smallest = float(magnitudes.max()), float(magnitudes.min())
        self.int_mode = bool(np.all(np.ceil(candidates) == candidates))
        if _OPTIONS.sci_mode is None:
            self.sci_mode = largest / smallest > SCI_SPREAD or largest > SCI_LARGEST or smallest < SCI_SMALLEST
        else:
            self.sci_mode = _OPTIONS.sci_mode
        precision = _OPTIONS.precision
        values = candidates.tolist()
        if self.sci_mode:
            texts = [f"{v:.{precision}e}" for v in values]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in values]
        else:
            texts = [f"{v:.{precision}f}" for v in values]
        self.width = max([self.width] + [len(text) for text in texts])

    def __call__(self, value: Union[float, int, bool]) -> str:
        if self.floating:
            precision = _OPTIONS.precision
            if self.sci_mode:
                text = f"{value:{self.width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if math.isfinite(value):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = self._plain(value)
        return text.rjust(self.width)


def _is_summarised(length: int) -> bool:
    return length > 2 * _OPTIONS.edgeitems


def _edge_indices(length: int) -> list[int]:
    edge = _OPTIONS.edgeitems
    return list(range(edge)) + list(range(length - edge, length))


def summarised_values(values: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows: ``edgeitems`` at both ends of every long dim."""
    if values.ndim == 0:
        return values
    edge = _OPTIONS.edgeitems
    if values.ndim == 1:
        # (with ``edgeitems=0`` PyTorch's ``[-0:]`` keeps the whole row: kept for equal widths)
        return np.concatenate([values[:edge], values[-edge:]]) if _is_summarised(len(values)) else values
    if not edge:
        return np.empty((0,) * values.ndim, dtype=values.dtype)
    rows = _edge_indices(len(values)) if _is_summarised(len(values)) else range(len(values))
    return np.stack([summarised_values(values[i]) for i in rows])


def _vector_str(values: np.ndarray, indent: int, summarise: bool, fmt: ElementFormatter) -> str:
    per_line = max(1, (_OPTIONS.linewidth - indent) // (fmt.width + SEPARATOR_WIDTH))
    items = values.tolist()
    if summarise and not _OPTIONS.edgeitems:
        cells = ["..."]
    elif summarise and _is_summarised(len(items)):
        edge = _OPTIONS.edgeitems
        cells = [fmt(v) for v in items[:edge]] + [" ..."] + [fmt(v) for v in items[len(items) - edge:]]
    else:
        cells = [fmt(v) for v in items]
    lines = [", ".join(cells[i:i + per_line]) for i in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, summarise: bool, fmt: ElementFormatter) -> str:
    if values.ndim == 0:
        return fmt(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, summarise, fmt)
    length = len(values)
    if summarise and _is_summarised(length):
        edge = _OPTIONS.edgeitems
        rows = [_nested_str(values[i], indent + 1, summarise, fmt) for i in range(edge)]
        rows += ["..."]
        rows += [_nested_str(values[i], indent + 1, summarise, fmt) for i in range(length - edge, length)]
    else:
        rows = [_nested_str(values[i], indent + 1, summarise, fmt) for i in range(length)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def values_str(values: np.ndarray, dtype: dtypes.dtype, indent: int) -> str:
    """The bracketed body of a print of ``values`` (nonempty) whose first line starts at ``indent``."""
    summarise = values.size > _OPTIONS.threshold
    fmt = ElementFormatter(summarised_values(values) if summarise else values, dtype)
    return _nested_str(values, indent, summarise, fmt)


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` pieces, starting a new line where one would pass ``linewidth``."""
    pieces = [text]
    # PyTorch's measure of the last line (two more than its length when there is no newline)
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + SEPARATOR_WIDTH > _OPTIONS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line += len(suffix) + SEPARATOR_WIDTH
    return "".join(pieces) + ")"


def _device_suffix(t: "Tensor") -> list[str]:
    if t.device.type == "cpu":
        return []
    if t.device.type == "meta":
        return ["device='meta'"]
    index = t.device.index if t.device.index is not None else 0
    return [f"device='{t.device.type}:{index}'"]


def _shape_text(t: "Tensor") -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ("," if t.dim() == 1 else "") + ")"


def _dtype_and_grad_suffixes(t: "Tensor") -> list[str]:
    """A meta tensor's other suffixes: any dtype but the default one (int64 included: there are
    no values to show it), then its ``grad_fn`` or ``requires_grad``."""
    suffixes = [] if t.dtype is dtypes.get_default_dtype() else [f"dtype={t.dtype}"]
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name().rsplit('::', 1)[-1]}>")  # PyTorch's C++ nodes drop their namespace
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return suffixes


def tensor_repr(t: "Tensor") -> str:
    indent = len(PREFIX)
    suffixes = _device_suffix(t)
    if t.device.type == "meta":  # no values to show: ``tensor(..., device='meta', size=(2, 3))``
        return _with_suffixes(PREFIX + "...", [*suffixes, f"size={_shape_text(t)}", *_dtype_and_grad_suffixes(t)],
                              indent)
    values = t.detach()._host_numpy()
    if values.size == 0:
        body = "[]"
        if t.dim() != 1:
            suffixes.append(f"size={_shape_text(t)}")
        if t.dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
    else:
        if not _OPTIONS.edgeitems:
            suffixes.append(f"size={_shape_text(t)}")
        if t.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={t.dtype}")
        body = values_str(values, t.dtype, indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name().rsplit('::', 1)[-1]}>")  # PyTorch's C++ nodes drop their namespace
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(PREFIX + body, suffixes, indent)

