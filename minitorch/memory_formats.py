r"""Memory formats: the order in which a tensor's elements lie in its storage.

A memory format never changes a tensor's shape or values, only its strides:

- ``contiguous_format``: row-major, the last dimension varies fastest.
- ``channels_last``: an ``(N, C, H, W)`` tensor stored as ``(N, H, W, C)`` would be
  row-major, so the channels of one pixel sit side by side (strides
  :math:`(HWC, 1, WC, C)`); for 4-D tensors only.
- ``channels_last_3d``: the same for ``(N, C, D, H, W)``, stored as ``(N, D, H, W, C)``.
- ``preserve_format``: a copy keeps its input's layout (see :func:`copy_strides`).

The rules here are PyTorch's, including those for dimensions of size 1, whose stride is
never read and so may be anything.
"""

from __future__ import annotations

from typing import Any, Optional

from .tensor_data import Shape, Strides, contiguous_strides


class memory_format:  # noqa: N801 - PyTorch's spelling
    """A memory format, e.g. ``minitorch.channels_last``: one object per format, compared with ``is``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __copy__(self) -> "memory_format":
        return self

    def __deepcopy__(self, memo: dict) -> "memory_format":
        return self

    def __reduce__(self) -> str:
        return self.name  # pickled by name: unpickling finds the one object of this module


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

#: each channels-last format's dimensions from the fastest-varying in storage to the slowest
#: (its rank is their count): the channels, then the spatial dimensions last to first, the batch
CHANNELS_LAST_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}

#: the channels-last format of each rank that has one
_FORMAT_OF_RANK = {len(order): fmt for fmt, order in CHANNELS_LAST_ORDER.items()}
#: the ranks that have a channels-last format (those ``Module.to(memory_format=...)`` lays out)
CHANNELS_LAST_RANKS = tuple(_FORMAT_OF_RANK)


def check_memory_format(value: Any, op: str) -> memory_format:
    """``value`` when it is a memory format, else PyTorch's TypeError for ``op``'s argument."""
    if not isinstance(value, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be minitorch.memory_format, not {type(value).__name__}")
    return value


def channels_last_strides(shape: Shape, fmt: memory_format) -> Strides:
    """The strides of a ``shape`` tensor laid out by the channels-last ``fmt``; PyTorch's
    RuntimeError for a shape of another rank. Sizes multiply as they are (a size of 0 gives
    the dimensions after it a stride of 0, as PyTorch's)."""
    order = CHANNELS_LAST_ORDER[fmt]
    if len(shape) != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {fmt.name} format")
    strides = [0] * len(shape)
    step = 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_row_major(shape: Shape, strides: Strides) -> bool:
    """PyTorch's row-major contiguity: an empty tensor always is, and sizes of 1 are skipped."""
    if 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _is_channels_last_contiguous(shape: Shape, strides: Strides, order: tuple[int, ...]) -> bool:
    """Whether the elements fill the storage without gaps in the order ``order`` (fastest
    first), dimensions of size 1 skipped."""
    expected = 1
    for d in order:
        size = shape[d]
        if size != 1:
            if strides[d] != expected:
                return False
            expected *= size
    return True


def is_contiguous_as(shape: Shape, strides: Strides, fmt: memory_format) -> bool:
    """Whether a ``shape``/``strides`` view is contiguous in ``fmt`` (``Tensor.is_contiguous``):
    a channels-last format only for its own rank; ``preserve_format`` asks about row-major order."""
    order = CHANNELS_LAST_ORDER.get(fmt)
    if order is None:
        return is_row_major(shape, strides)
    return len(shape) == len(order) and _is_channels_last_contiguous(shape, strides, order)


def _strides_like_channels_last(shape: Shape, strides: Strides, order: tuple[int, ...]) -> bool:
    """PyTorch's guess that a (possibly sliced or padded) layout is channels-last: the strides
    grow along ``order``, each at least the extent of the dimensions before it, channels not
    broadcast and no size 0."""
    if strides[1] == 0:
        return False
    least = 0
    for d in order:
        size, stride = shape[d], strides[d]
        if size == 0 or stride < least:
            return False
        if d == 0 and least == strides[1]:  # the batch stride equal to the channels' extent: ambiguous
            return False
        least = stride * size if size > 1 else stride
    return True


def suggest_memory_format(shape: Shape, strides: Strides) -> memory_format:
    """The format a layout is closest to: the channels-last format of its rank when its strides
    look like one (:func:`_strides_like_channels_last`), else ``contiguous_format``."""
    fmt = _FORMAT_OF_RANK.get(len(shape))
    if fmt is not None and _strides_like_channels_last(shape, strides, CHANNELS_LAST_ORDER[fmt]):
        return fmt
    return contiguous_format


def is_non_overlapping_and_dense(shape: Shape, strides: Strides) -> bool:
    """Whether the elements fill a block of storage exactly once, in some order of the dimensions."""
    if is_row_major(shape, strides):
        return True
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    # dimensions by stride, those of size 0 or 1 (whose stride is never read) last
    order = sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d] if shape[d] >= 2 else 0))
    expected = 1
    for d in order:
        if shape[d] < 2:
            return True
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def copy_strides(shape: Shape, strides: Strides, fmt: memory_format) -> Strides:
    """The strides of a copy in ``fmt`` of a ``shape``/``strides`` view (``clone``, ``*_like``,
    ``to``). ``preserve_format`` keeps a dense, non-overlapping view's strides and otherwise
    takes the format that :func:`suggest_memory_format` gives."""
    if fmt is preserve_format:
        if is_non_overlapping_and_dense(shape, strides):
            return tuple(strides)
        fmt = suggest_memory_format(shape, strides)
    if fmt is contiguous_format:
        return contiguous_strides(tuple(shape))
    return channels_last_strides(shape, fmt)


def result_strides(shape: Shape, operand_shape: Shape, operand_strides: Strides) -> Optional[Strides]:
    """The channels-last strides an elementwise result of ``shape`` keeps from the operand that
    decides its layout, or None for row-major: when that operand has the result's whole
    shape and is channels-last contiguous but not row-major (PyTorch's results follow it)."""
    fmt = _FORMAT_OF_RANK.get(len(shape))
    if fmt is None or operand_shape != shape:
        return None
    if not _is_channels_last_contiguous(shape, operand_strides, CHANNELS_LAST_ORDER[fmt]):
        return None
    if is_row_major(shape, operand_strides):
        return None
    return channels_last_strides(shape, fmt)
