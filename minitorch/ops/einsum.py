r"""``einsum``: Einstein summation, reduced to diagonals, sums, permutes and batched matmuls.

An equation such as ``"bij,bjk->bik"`` names each operand's dimensions; a name repeated within
an operand takes a diagonal, a name missing from the output is summed over:

.. math:: \mathrm{out}_{bik} = \textstyle\sum_j A_{bij} B_{bjk}

Operands are combined two at a time, left to right. For a pair, every name falls in one of
four groups: *batch* (in both, kept), *contracted* (in both, not needed later), *left* (only
in the first, kept) and *right* (only in the second, kept). Permuting the first operand to
(batch, left, contracted) and the second to (batch, right, contracted), each flattened to
three dimensions, makes the pair one ``bmm``, so einsum is as fast as matmul and its gradient
comes from the ops it is made of. ``...`` stands for dimensions that broadcast, as do names of
size 1.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..tensor import Tensor

#: how many letters a subscript can be (``a``-``z`` and ``A``-``Z``)
LETTERS = 52
#: in the sublist form, subscripts 0-25 are ``A``-``Z`` and 26-51 ``a``-``z``
UPPER_CASE = 26

#: a parsed term: letter codes (ord), with None where the ellipsis stands
Term = list[Optional[int]]


def _parse_term(text: str, start: int, owner: str) -> Term:
    """The subscripts of one term of the equation; ``start`` is its position in the equation."""
    term: Term = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == ".":
            if None in term:
                raise RuntimeError(f"einsum(): found '.' for {owner} for which an ellipsis was already found")
            if text[i : i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for {owner} that is not part of any ellipsis"
                                   + (" (...)" if owner == "output" else ""))
            term.append(None)
            i += 3
            continue
        if not ("a" <= char <= "z" or "A" <= char <= "Z"):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {start + i} in the equation string, subscripts must be in [a-zA-Z]"
            )
        term.append(ord(char))
        i += 1
    return term


def _from_sublists(args: Sequence[Any]) -> tuple[str, list[Tensor]]:
    """The equation of the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""

    def letters(sublist: Sequence[Any]) -> str:
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif not 0 <= int(s) < LETTERS:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, {LETTERS})")
            else:
                s = int(s)
                out.append(chr(ord("A") + s) if s < UPPER_CASE else chr(ord("a") + s - UPPER_CASE))
        return "".join(out)

    operands = list(args[0::2])
    terms = [letters(s) for s in args[1::2]]
    equation = ",".join(terms[: len(operands)])
    if len(args) % 2:  # an output sublist after the last pair
        operands, equation = operands[:-1], ",".join(terms) + "->" + letters(args[-1])
    return equation, operands


def _parse(equation: str, operands: Sequence[Tensor]) -> tuple[list[list[int]], list[int], int]:
    """Each operand's labels and the output's, with ellipsis dimensions as negative labels
    (right-aligned, so they broadcast); and how many ellipsis dimensions there are."""
    lhs, arrow, rhs = equation.partition("->")
    pieces, starts, position = lhs.split(","), [], 0
    for piece in pieces:
        starts.append(position)
        position += len(piece) + 1
    if len(pieces) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(pieces) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    labels: list[list[int]] = []
    ellipsis_dims = 0
    terms = []
    for k, (piece, start, t) in enumerate(zip(pieces, starts, operands)):
        term = _parse_term(piece, start, f"operand {k}")
        named = len(term) - (None in term)
        if None not in term and named != t.dim():
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match the number of "
                f"dimensions ({t.dim()}) for operand {k} and no ellipsis was given"
            )
        if named > t.dim():
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) is more than the number of "
                f"dimensions ({t.dim()}) for operand {k}"
            )
        ellipsis_dims = max(ellipsis_dims, t.dim() - named if None in term else 0)
        terms.append(term)
    for term, t in zip(terms, operands):
        expanded: list[int] = []
        for label in term:
            if label is None:
                count = t.dim() - (len(term) - 1)
                expanded.extend(range(-count, 0))
            else:
                expanded.append(label)
        labels.append(expanded)
    seen = {label for term in labels for label in term}
    if arrow:
        out_term = _parse_term(rhs, len(lhs) + len(arrow), "output")
        output: list[int] = []
        for label in out_term:
            if label is None:
                output.extend(range(-ellipsis_dims, 0))
                continue
            if label not in seen:
                raise RuntimeError(f"einsum(): output subscript {chr(label)} does not appear in the equation for any input operand")
            if label in output:
                raise RuntimeError(f"einsum(): output subscript {chr(label)} appears more than once in the output")
            output.append(label)
    else:  # implicit: the ellipsis, then the subscripts seen exactly once, in alphabetical (ASCII) order
        counts: dict[int, int] = {}
        for term in labels:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        output = list(range(-ellipsis_dims, 0)) + sorted(c for c, n in counts.items() if n == 1 and c >= 0)
    return labels, output, ellipsis_dims


def _label_name(label: int) -> str:
    return chr(label) if label >= 0 else "..."


def _take_diagonals(t: Tensor, labels: list[int], k: int) -> tuple[Tensor, list[int]]:
    """``t`` with each repeated label reduced to its diagonal (the label then appears once)."""
    labels = list(labels)
    while len(set(labels)) != len(labels):
        first = next(i for i, label in enumerate(labels) if labels.count(label) > 1)
        second = labels.index(labels[first], first + 1)
        if t.shape[first] != t.shape[second]:
            raise RuntimeError(
                f"einsum(): subscript {_label_name(labels[first])} is repeated for operand {k} but the sizes don't match, "
                f"{t.shape[second]} != {t.shape[first]}"
            )
        t = t.diagonal(0, first, second)
        labels = [label for i, label in enumerate(labels) if i not in (first, second)] + [labels[first]]
    return t, labels


def _sum_out(t: Tensor, labels: list[int], drop: set[int]) -> tuple[Tensor, list[int]]:
    dims = [i for i, label in enumerate(labels) if label in drop]
    if not dims:
        return t, labels
    return t.sum(tuple(dims)), [label for label in labels if label not in drop]


def _contract(a: Tensor, la: list[int], b: Tensor, lb: list[int], keep: set[int]) -> tuple[Tensor, list[int]]:
    """The pair ``a``, ``b`` as one batched matmul; the result keeps the labels in ``keep``."""
    a, la = _sum_out(a, la, {label for label in la if label not in keep and label not in lb})
    b, lb = _sum_out(b, lb, {label for label in lb if label not in keep and label not in la})
    shared = [label for label in la if label in lb]
    for label in shared:  # a shared label of size 1 on one side broadcasts
        na, nb = a.shape[la.index(label)], b.shape[lb.index(label)]
        if na == nb:
            continue
        if label in keep:  # batch: expand the size-1 side
            if na == 1:
                a = a.expand(*[nb if x == label else -1 for x in la])
            else:
                b = b.expand(*[na if x == label else -1 for x in lb])
        elif na == 1:  # contracted against a single value: sum the other side alone
            a, la = a.squeeze(la.index(label)), [x for x in la if x != label]
            b, lb = _sum_out(b, lb, {label})
        else:
            b, lb = b.squeeze(lb.index(label)), [x for x in lb if x != label]
            a, la = _sum_out(a, la, {label})
    batch = [label for label in la if label in lb and label in keep]
    contracted = [label for label in la if label in lb and label not in keep]
    left = [label for label in la if label not in lb]
    right = [label for label in lb if label not in la]
    size = dict(zip(la, a.shape)) | dict(zip(lb, b.shape))

    def flat(labels: list[int]) -> int:
        return math.prod(size[label] for label in labels)

    a3 = a.permute(*[la.index(x) for x in batch + left + contracted]).reshape(flat(batch), flat(left), flat(contracted))
    b3 = b.permute(*[lb.index(x) for x in batch + right + contracted]).reshape(flat(batch), flat(right), flat(contracted))
    if a3.dtype is dtypes.bool_ and b3.dtype is dtypes.bool_ and (flat(contracted) == 1 or 0 in a3.shape + b3.shape):
        # PyTorch multiplies bools where nothing is summed (its bmm, which has no bool kernel, runs otherwise)
        out3 = (a3.unsqueeze(2) & b3.unsqueeze(1)).any(-1)
    else:
        out3 = a3 @ b3.transpose(1, 2)
    out = out3.reshape(tuple(size[x] for x in batch + left + right))
    return out, batch + left + right


def _check_sizes(operands: Sequence[Tensor], labels: list[list[int]]) -> None:
    seen: dict[int, int] = {}
    for k, (t, term) in enumerate(zip(operands, labels)):
        for label, n in zip(term, t.shape):
            previous = seen.get(label)
            if previous is not None and n != previous and n != 1 and previous != 1:
                raise RuntimeError(
                    f"einsum(): subscript {_label_name(label)} has size {n} for operand {k} which does not broadcast "
                    f"with previously seen size {previous}"
                )
            if previous is None or previous == 1:
                seen[label] = n


def einsum(*args: Any) -> Tensor:
    """PyTorch's ``torch.einsum(equation, *operands)`` (operands also as one list), or the sublist
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if not args or (isinstance(args[0], str) and len(args) < 2):
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list"
        )
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _from_sublists(args)
    equation = equation.replace(" ", "")
    for t in operands[1:]:
        if t.dtype is not operands[0].dtype:
            raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(operands[0].dtype)} but found {dtypes.scalar_type_name(t.dtype)}")
    labels, output, _ = _parse(equation, operands)
    terms = []
    for k, (t, term) in enumerate(zip(operands, labels)):
        terms.append(_take_diagonals(t, term, k))
    _check_sizes([t for t, _ in terms], [term for _, term in terms])
    t, term = terms[0]
    for k, (other, other_term) in enumerate(terms[1:], start=1):
        keep = set(output).union(*[set(rest) for _, rest in terms[k + 1 :]])
        t, term = _contract(t, term, other, other_term, keep)
    t, term = _sum_out(t, term, {label for label in term if label not in output})
    order = [term.index(label) for label in output]
    return t.permute(*order) if order != list(range(len(order))) else t
