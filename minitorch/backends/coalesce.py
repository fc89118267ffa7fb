"""Fewer, longer dimensions for an elementwise kernel: neighbouring dimensions merged.

A kernel finds where each run of elements starts by dividing its number by the size of every
dimension before the run (:func:`.cpu_kernels.start_position`): one integer division per
dimension per operand, tens of cycles each. When the runs are short, that costs more than the
work. A max-pooling's backward is the worst case: ``(64, 6, 14, 14, 4)`` with an operand
broadcast along the last dimension and another along the first four, so the kernel sees
75 264 runs of 4 elements and four divisions per run and operand.

But for an elementwise op only the pairing of positions matters, not the shape: two
neighbouring dimensions ``d`` and ``d + 1`` can be read as one of size
``shape[d] * shape[d + 1]`` whenever every operand steps along ``d`` exactly as far as a
whole sweep of ``d + 1`` (``strides[d] == strides[d + 1] * shape[d + 1]``; a broadcast
dimension, stride 0 in both, qualifies too). Dimensions of size 1 are dropped. The example
becomes ``(75264, 4)``: one division per run. A contiguous tensor of any rank becomes one
dimension. NumPy's iterator does the same ("coalescing").
"""

from __future__ import annotations

from typing import Sequence


def coalesce(shape: Sequence[int], strides: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """``shape`` and each operand's ``strides`` (already broadcast to ``shape``) with every
    mergeable pair of neighbouring dimensions merged and the dimensions of size 1 dropped.

    At least one dimension remains. Every index of the result visits the same positions of
    every operand, in the same (row-major) order, as the original.
    """
    kept = [d for d in range(len(shape)) if shape[d] != 1] or [len(shape) - 1]
    merged_shape = [shape[kept[0]]]
    merged_strides = [[operand[kept[0]]] for operand in strides]
    for d in kept[1:]:
        size = shape[d]
        if all(merged[-1] == operand[d] * size for merged, operand in zip(merged_strides, strides)):
            merged_shape[-1] *= size
            for merged, operand in zip(merged_strides, strides):
                merged[-1] = operand[d]
        else:
            merged_shape.append(size)
            for merged, operand in zip(merged_strides, strides):
                merged.append(operand[d])
    return merged_shape, merged_strides


def longest_innermost(shape: list[int], strides: list[list[int]], short: int) -> tuple[list[int], list[list[int]]]:
    """The same iteration with the longest dimension innermost, when the innermost one is
    shorter than ``short``.

    A kernel's work per run (finding its start, calling the loop) is paid once per run, so
    ``(75264, 4)`` is 75 264 runs of 4 elements where ``(4, 75264)``, the same elements, is 4
    runs of 75 264. An elementwise op gives the same result in any order: it may visit the
    positions in whichever order has the longest runs (each run then strided).
    """
    last = len(shape) - 1
    longest = max(range(len(shape)), key=shape.__getitem__)
    if shape[last] >= short or shape[longest] <= shape[last]:
        return shape, strides
    order = [d for d in range(len(shape)) if d != longest] + [longest]
    return [shape[d] for d in order], [[operand[d] for d in order] for operand in strides]


def coalesce_around(shape: Sequence[int], strides: Sequence[Sequence[int]],
                    dim: int) -> tuple[list[int], list[list[int]], int]:
    """:func:`coalesce` for a reduction along ``dim``: the dimensions before ``dim`` merged among
    themselves, and those after it, ``dim`` kept where it is. Returns the shape, the strides
    and ``dim``'s new position."""
    before_shape, before_strides = _merged_part(shape[:dim], [s[:dim] for s in strides])
    after_shape, after_strides = _merged_part(shape[dim + 1 :], [s[dim + 1 :] for s in strides])
    new_shape = before_shape + [shape[dim]] + after_shape
    new_strides = [b + [s[dim]] + a for b, s, a in zip(before_strides, strides, after_strides)]
    return new_shape, new_strides, len(before_shape)


def _merged_part(shape: Sequence[int], strides: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """:func:`coalesce` of some of the dimensions; none if there are none or all have size 1."""
    if all(size == 1 for size in shape):
        return [], [[] for _ in strides]
    return coalesce(shape, strides)
