"""The op vocabulary every backend shares: op names, op codes and the scalar bodies.

An op is named by a string above the backends (``backend.map("exp", a, out)``) and by an
integer *op code* inside the kernels: its position in one of the tables below. The tables
only grow at the end (append-only), so a code never changes meaning and the kernels Numba
has compiled into its on-disk cache stay valid.

The scalar bodies are written once, here, as plain Python functions of ``(op, x, ...)``
that store their result into ``out[pos]`` (so the store casts to ``out``'s dtype, as
NumPy does) or return one step of a reduction. The same source runs three ways:

* the ``simple`` backend calls them as they are, on NumPy scalars;
* the ``cpu`` backend compiles them with ``numba.njit`` into its kernels, one tight loop
  per op code (:mod:`.cpu_kernels`);
* the ``cuda`` backend compiles them as ``cuda.jit(device=True)`` functions.

So every branch must also be right in plain Python, where ``math.exp`` raises
``OverflowError`` and ``math.log``/``math.sqrt`` raise ``ValueError`` outside their
domain: the guards give the IEEE results (inf, -inf, NaN) that compiled code gives.

Adding a unary op: append its name to :data:`UNARY`, give it a constant with the next
code, and a branch in :func:`unary_into`; then its autograd ``Function`` in
``minitorch/ops/elementwise.py``.
"""

from __future__ import annotations

import math
from typing import Any

#: elementwise ops of one operand: ``out[i] = f(a[i])`` (position = op code; append only)
UNARY = (
    "copy", "neg", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "relu", "sign", "logical_not",
    "sin", "cos",
)
COPY, NEG, EXP, LOG, SQRT, ABS, SIGMOID, TANH, RELU, SIGN, LOGICAL_NOT = range(11)
SIN, COS = range(11, 13)

#: elementwise ops of two operands, broadcast to ``out.shape``: ``out[i] = f(a[i], b[i])``.
#: ``masked`` is ``a if b else 0``: a selection that never multiplies (so inf/nan in the
#: unselected side stay out). Position = op code; append only.
BINARY = (
    "add", "sub", "mul", "div", "pow", "maximum", "minimum",
    "lt", "le", "gt", "ge", "eq", "ne", "masked",
)
ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, LT, LE, GT, GE, EQ, NE, MASKED = range(14)

#: reductions along one dimension (position = op code; append only)
REDUCE = ("sum", "prod", "max", "min")
SUM, PROD, MAX, MIN = range(4)

#: reductions that return the int64 position of the extreme value, the first one on ties
ARG_REDUCE = ("argmax", "argmin")
ARGMAX, ARGMIN = range(2)

UNARY_CODES: dict[str, int] = {name: code for code, name in enumerate(UNARY)}
BINARY_CODES: dict[str, int] = {name: code for code, name in enumerate(BINARY)}
REDUCE_CODES: dict[str, int] = {name: code for code, name in enumerate(REDUCE)}
ARG_REDUCE_CODES: dict[str, int] = {name: code for code, name in enumerate(ARG_REDUCE)}

#: above this ``exp`` overflows float64 (``math.exp`` would raise in plain Python)
EXP_OVERFLOW = 709.78


def code_of(codes: dict[str, int], op: str) -> int:
    """The op code of ``op`` in one of the ``*_CODES`` tables, or a ValueError naming the known ops."""
    code = codes.get(op)
    if code is None:
        raise ValueError(f"unknown op {op!r}; expected one of {sorted(codes)}")
    return code


def unary_into(op: int, x: Any, out: Any, pos: int) -> None:
    """``out[pos] = op(x)`` for a unary op code (IEEE results outside a function's domain)."""
    if op == COPY:
        out[pos] = x
    elif op == NEG:
        out[pos] = -x
    elif op == EXP:
        out[pos] = math.inf if x > EXP_OVERFLOW else math.exp(x)
    elif op == LOG:
        out[pos] = math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
    elif op == SQRT:
        out[pos] = math.sqrt(x) if x >= 0 else math.nan
    elif op == ABS:
        out[pos] = abs(x)
    elif op == SIGMOID:
        # the form that cannot overflow on either side
        if x >= 0:
            out[pos] = 1.0 / (1.0 + math.exp(-x))
        else:
            z = math.exp(x)
            out[pos] = z / (1.0 + z)
    elif op == TANH:
        out[pos] = math.tanh(x)
    elif op == RELU:
        if x > 0 or x != x:
            out[pos] = x
        else:
            out[pos] = 0
    elif op == SIGN:
        if x > 0:
            out[pos] = 1
        elif x < 0:
            out[pos] = -1
        else:
            out[pos] = 0
    elif op == SIN:
        out[pos] = math.sin(x) if abs(x) != math.inf else math.nan
    elif op == COS:
        out[pos] = math.cos(x) if abs(x) != math.inf else math.nan
    else:  # LOGICAL_NOT
        out[pos] = x == 0


def binary_into(op: int, x: Any, y: Any, out: Any, pos: int) -> None:
    """``out[pos] = op(x, y)`` for a binary op code."""
    if op == ADD:
        out[pos] = x + y
    elif op == SUB:
        out[pos] = x - y
    elif op == MUL:
        out[pos] = x * y
    elif op == DIV:
        out[pos] = x / y
    elif op == POW:
        out[pos] = x**y
    elif op == MAXIMUM:
        out[pos] = x if (x > y or x != x) else y
    elif op == MINIMUM:
        out[pos] = x if (x < y or x != x) else y
    elif op == LT:
        out[pos] = x < y
    elif op == LE:
        out[pos] = x <= y
    elif op == GT:
        out[pos] = x > y
    elif op == GE:
        out[pos] = x >= y
    elif op == EQ:
        out[pos] = x == y
    elif op == NE:
        out[pos] = x != y
    else:  # MASKED: a selection, never a product, so inf/nan where y is 0 stay out
        if y != 0:
            out[pos] = x
        else:
            out[pos] = 0


def reduce_step(op: int, acc: Any, x: Any) -> Any:
    """One step of a reduction: ``acc`` combined with the next value ``x`` (NaN wins max/min)."""
    if op == SUM:
        return acc + x
    elif op == PROD:
        return acc * x
    elif op == MAX:
        return acc if (acc > x or acc != acc) else x
    else:  # MIN
        return acc if (acc < x or acc != acc) else x


def is_better(op: int, x: Any, best: Any) -> bool:
    """Whether ``x`` strictly beats ``best`` for argmax/argmin (a NaN beats any number)."""
    if op == ARGMAX:
        return x > best or (x != x and best == best)
    else:  # ARGMIN
        return x < best or (x != x and best == best)
