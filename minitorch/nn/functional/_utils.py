"""Small helpers the functional ops share: argument normalisation and loss reductions."""

from __future__ import annotations

from typing import Sequence, Union

from ...tensor import Tensor

IntOrTuple = Union[int, Sequence[int]]
REDUCTIONS = ("none", "mean", "sum")


def ntuple(value: IntOrTuple, n: int, name: str) -> tuple[int, ...]:
    """``value`` repeated ``n`` times if it is one int, else as a tuple of exactly ``n`` ints."""
    if isinstance(value, int):
        return (value,) * n
    values = tuple(int(v) for v in value)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the convolution dimensions, but got {name}={list(values)}")
    return values


def check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """Apply a loss's ``reduction``: ``'none'`` keeps every element, ``'mean'``/``'sum'`` one number."""
    check_reduction(reduction)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def shape_list(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"
