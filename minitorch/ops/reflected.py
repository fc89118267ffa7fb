r"""Operators with a Python number on the left (``2 - x``, ``2 ** x``), recorded as PyTorch
records them: one node whose only edge is the tensor's, since the number is no input of the
graph (``RsubBackward1``, ``PowBackward2``).

``2 + x`` and ``2 * x`` need nothing of their own (the tensor's ``__add__``/``__mul__``: both
orders give the same values) and ``2 / x`` is ``x.reciprocal() * 2``, as PyTorch computes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..autograd.function import Context, Function
from ..dispatch import zip_op
from .elementwise import Pow

if TYPE_CHECKING:  # tensor.py imports this module
    from ..tensor import Tensor


class Rsub(Function):
    r""":math:`f(a, s) = s - a` for a number :math:`s`: :math:`\partial_a f = -1`."""

    number_args = (1,)
    grad_fn_name = "RsubBackward1"

    @staticmethod
    def forward(ctx: Context, a: Tensor, number: Tensor) -> Tensor:
        return zip_op("sub", number, a)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return -grad, None


class PowOfNumber(Pow):
    r""":math:`f(s, b) = s^b` for a number :math:`s`: :math:`\partial_b f = s^b \ln s` (0 where
    :math:`s = 0` and :math:`b \ge 0`), :class:`~.elementwise.Pow`'s rule for its exponent."""

    number_args = (0,)
    grad_fn_name = "PowBackward2"

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[None, Optional[Tensor]]:
        return None, Pow.backward(ctx, grad)[1]
