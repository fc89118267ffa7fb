r"""Padding: grow a tensor's trailing dimensions by a constant, a mirror image, the edge
values or a wrap-around.

``pad`` lists ``(before, after)`` pairs starting from the **last** dimension, as PyTorch:
``pad=(1, 1, 2, 0)`` adds one column each side and two rows on top. Constant padding is
one autograd Function; the other modes read the input at computed positions (a gather
along each padded dimension), so their gradients add up where positions repeat.
"""

from __future__ import annotations

from typing import Sequence

from ... import creation, dtypes
from ...functions.indexing import Gather
from ...functions.windows import ConstantPad
from ...tensor import Tensor

PAD_MODES = ("constant", "reflect", "replicate", "circular")
#: PyTorch's names of the last dimensions in padding errors, last first
SPATIAL_NAMES = ("W", "H", "D")


def _pairs(pad: Sequence[int], ndim: int) -> list[tuple[int, int]]:
    """One ``(before, after)`` pair per dimension of the input (0 for the unpadded ones)."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got padding length {len(pad)} and input of dimension {ndim}")
    pairs = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        pairs[ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


def _source_positions(size: int, before: int, after: int, mode: str) -> list[int]:
    """For each position of the padded dimension, the input position it copies."""
    positions = []
    for p in range(-before, size + after):
        if mode == "replicate":
            positions.append(min(max(p, 0), size - 1))
        elif mode == "circular":
            positions.append(p % size)
        else:  # reflect: mirror about the edge elements, which are not repeated
            period = 2 * (size - 1)
            q = p % period if period else 0
            positions.append(q if q < size else period - q)
    return positions


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """``input`` padded as ``pad`` says (see the module docstring); negative amounts crop.

    As in PyTorch, ``constant`` and ``circular`` crop first and pad what is left, while
    ``reflect`` and ``replicate`` read their positions off the whole input.
    """
    if mode not in PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pairs = _pairs(pad, input.dim())
    if mode != "constant" and value not in (None, 0, 0.0):
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode in ("constant", "circular"):
        if any(n < max(-b, 0) + max(-a, 0) for (b, a), n in zip(pairs, input.shape)):
            raise RuntimeError("narrow(): length must be non-negative.")
        if any(b < 0 or a < 0 for b, a in pairs):
            input = input[tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pairs, input.shape))]
        pairs = [(max(b, 0), max(a, 0)) for b, a in pairs]
        if mode == "constant":
            return ConstantPad.apply(input, tuple(pairs), 0.0 if value is None else value)
    else:
        _check_edge_reading(input, pairs, len(pad) // 2)
    out = input
    for d, (before, after) in enumerate(pairs):
        if before == 0 and after == 0:
            continue
        size = out.shape[d]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({before}, {after}) at dimension {d} of input {list(out.shape)}"
            )
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        positions = creation.tensor(_source_positions(size, before, after, mode), dtype=dtypes.int64, device=out.device)
        shape = list(out.shape)
        shape[d] = len(positions)
        index = positions.view([-1 if e == d else 1 for e in range(out.dim())]).expand(*shape)
        out = Gather.apply(out, d, index)
    return out


def _check_edge_reading(input: Tensor, pairs: Sequence[tuple[int, int]], padded_dims: int) -> None:  # noqa: A002
    """PyTorch's errors for ``reflect``/``replicate`` padding of an empty row, or to an empty output."""
    # every padded row is read at its edges: none may be empty (the batch dimension may)
    checked = input.shape[-(padded_dims + 1):] if input.dim() > padded_dims + 1 else input.shape
    if padded_dims and 0 in checked:
        raise RuntimeError(
            f"Expected {padded_dims + 1}D or {padded_dims + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {list(input.shape)}"
        )
    for from_last in range(padded_dims):
        d = input.dim() - 1 - from_last
        (before, after), size = pairs[d], input.shape[d]
        if size + before + after < 1:
            name = SPATIAL_NAMES[from_last] if from_last < len(SPATIAL_NAMES) else f"dim {d}"
            raise RuntimeError(f"input ({name}: {size}) is too small. Calculated output {name}: {size + before + after}")
