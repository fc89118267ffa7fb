r"""Padding: grow a tensor's trailing dimensions by a constant, a mirror image, the edge
values or a wrap-around.

``pad`` lists ``(before, after)`` pairs starting from the **last** dimension, as PyTorch:
``pad=(1, 1, 2, 0)`` adds one column each side and two rows on top. Constant padding is
one autograd Function; the other modes read the input at computed positions (a gather
along each padded dimension), so their gradients add up where positions repeat.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ... import creation, dtypes
from ...ops.indexing import Gather
from ...ops.windows import ConstantPad
from ...tensor import Tensor

PAD_MODES = ("constant", "reflect", "replicate", "circular")


#: how many pad values the non-constant modes take for each input rank (PyTorch's table)
NON_CONSTANT_PAD_RANKS = {2: (2, 3), 4: (3, 4), 6: (4, 5)}


def _pairs(pad: Sequence[int], ndim: int) -> list[tuple[int, int]]:
    """One ``(before, after)`` pair per dimension of the input (0 for the unpadded ones)."""
    for position, amount in enumerate(pad):
        if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)):
            raise TypeError(
                f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                f"{type(amount).__name__} at pos {position}"
            )
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got padding length {len(pad)} and input of dimension {ndim}")
    pairs = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        pairs[ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


def _check_non_constant(pad_length: int, ndim: int) -> None:
    """The non-constant modes pad the last 1, 2 or 3 dimensions of a (batch of) sample(s) only."""
    if ndim not in NON_CONSTANT_PAD_RANKS.get(pad_length, ()):
        combinations = "\n".join(
            f"  - {low}D or {high}D input: padding size = {length} (pads last {'dimension' if length == 2 else f'{length // 2} dimensions'})"
            for length, (low, high) in NON_CONSTANT_PAD_RANKS.items()
        )
        raise NotImplementedError(
            f"Padding size {pad_length} is not supported for {ndim}D input tensor.\n"
            f"Supported combinations for non-constant padding:\n{combinations}"
        )


def _source_positions(size: int, before: int, after: int, mode: str) -> list[int]:
    """For each position of the padded dimension, the input position it copies (a negative
    ``before``/``after`` crops that side)."""
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

    Constant and circular padding crop first, then pad what is left; reflect and replicate
    read the whole input, then drop what a negative amount crops (as PyTorch does).
    """
    if mode not in PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pairs = _pairs(pad, input.dim())
    if mode != "constant":
        if value not in (None, 0, 0.0):
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        _check_non_constant(len(pad), input.dim())
        if mode in ("reflect", "replicate"):
            _check_edge_reading(input, len(pad) // 2)
    _check_sizes(input, pairs, len(pad), mode)
    if mode in ("constant", "circular"):
        crop = tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pairs, input.shape))
        if any(b < 0 or a < 0 for b, a in pairs):
            input = input[crop]
        pairs = [(max(b, 0), max(a, 0)) for b, a in pairs]
    if mode == "constant":
        return ConstantPad.apply(input, tuple(pairs), 0.0 if value is None else value)
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


def _check_edge_reading(input: Tensor, padded_dims: int) -> None:  # noqa: A002
    """PyTorch's error for ``reflect``/``replicate`` padding of an empty row: both read a row at
    its edges, which an empty row does not have (outputs that come out empty are
    :func:`_check_sizes`'s)."""
    checked = input.shape[-(padded_dims + 1):] if input.dim() > padded_dims + 1 else input.shape
    if padded_dims and 0 in checked:  # the batch dimension may be empty, the padded rows not
        raise RuntimeError(
            f"Expected {padded_dims + 1}D or {padded_dims + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {list(input.shape)}"
        )


def _check_sizes(input: Tensor, pairs: Sequence[tuple[int, int]], pad_length: int, mode: str) -> None:  # noqa: A002
    """PyTorch's errors for negative padding that crops more than a dimension holds."""
    for d, ((before, after), size) in enumerate(zip(pairs, input.shape)):
        kept = size + min(before, 0) + min(after, 0)  # what cropping leaves, before any growth
        if mode == "constant" and kept < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if mode == "circular" and kept < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        out_size = size + before + after
        if mode in ("reflect", "replicate"):
            if pad_length == 2 and d == input.dim() - 1 and out_size < 1:
                raise RuntimeError(f"input (W: {size}) is too small. Calculated output W: {out_size}")
            if out_size < 0:
                shape = [s + b + a for (b, a), s in zip(pairs, input.shape)]
                raise RuntimeError(f"Trying to create tensor with negative dimension {out_size}: {shape}")
