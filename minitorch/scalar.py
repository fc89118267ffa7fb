r"""Step 1: :class:`Scalar`, a single number that remembers how it was computed.

>>> x = Scalar(2.0)
>>> y = Scalar(3.0)
>>> z = x * x + x * y
>>> z.backward()
>>> x.derivative, y.derivative
(7.0, 2.0)

Here :math:`\frac{\partial z}{\partial x} = 2x + y = 7` and
:math:`\frac{\partial z}{\partial y} = x = 2`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence, Union

from .autodiff import Context, Variable, backpropagate
from .scalar_functions import EQ, LT, Add, Exp, Inv, Log, Mul, Neg, ReLU, ScalarFunction, Sigmoid

#: what an operator accepts on its other side: a Scalar or a plain number
ScalarLike = Union[float, int, "Scalar"]

_ids = itertools.count()


@dataclass(frozen=True)
class ScalarHistory:
    """How a :class:`Scalar` was made.

    A leaf (made by the user) has an empty history: no function, no inputs.

    Attributes:
        last_fn: the function whose output this Scalar is.
        ctx: what that function saved for its backward.
        inputs: the Scalars it was applied to.
    """

    last_fn: type[ScalarFunction] | None = None
    ctx: Context | None = None
    inputs: Sequence[Scalar] = ()


#: the history of every leaf (frozen, so one shared instance is safe)
LEAF_HISTORY = ScalarHistory()


class Scalar:
    """A float in a computation graph.

    Args:
        data: the value.
        history: how it was computed; the default makes a leaf that receives a
            ``derivative``, ``None`` makes a constant that autodiff skips.
        name: a label for printing graphs (defaults to the unique id).
    """

    def __init__(
        self,
        data: float,
        history: ScalarHistory | None = LEAF_HISTORY,
        name: str | None = None,
    ) -> None:
        self.data = float(data)
        self.history = history
        self.derivative: float | None = None
        self.unique_id = next(_ids)
        self.name = name if name is not None else str(self.unique_id)

    def __repr__(self) -> str:
        return f"Scalar({self.data:.4f})"

    def __hash__(self) -> int:
        return hash(self.unique_id)

    def __bool__(self) -> bool:
        return bool(self.data)

    # ---- operators: each one is a ScalarFunction, so it is recorded in the graph ----

    def __add__(self, other: ScalarLike) -> Scalar:
        return Add.apply(self, other)

    def __radd__(self, other: ScalarLike) -> Scalar:
        return Add.apply(other, self)

    def __sub__(self, other: ScalarLike) -> Scalar:
        return Add.apply(self, Neg.apply(other))

    def __rsub__(self, other: ScalarLike) -> Scalar:
        return Add.apply(other, Neg.apply(self))

    def __mul__(self, other: ScalarLike) -> Scalar:
        return Mul.apply(self, other)

    def __rmul__(self, other: ScalarLike) -> Scalar:
        return Mul.apply(other, self)

    def __truediv__(self, other: ScalarLike) -> Scalar:
        return Mul.apply(self, Inv.apply(other))

    def __rtruediv__(self, other: ScalarLike) -> Scalar:
        return Mul.apply(other, Inv.apply(self))

    def __neg__(self) -> Scalar:
        return Neg.apply(self)

    def __lt__(self, other: ScalarLike) -> Scalar:
        return LT.apply(self, other)

    def __gt__(self, other: ScalarLike) -> Scalar:
        return LT.apply(other, self)

    def __eq__(self, other: ScalarLike) -> Scalar:  # type: ignore[override]
        return EQ.apply(self, other)

    def log(self) -> Scalar:
        r""":math:`\ln x`"""
        return Log.apply(self)

    def exp(self) -> Scalar:
        r""":math:`e^x`"""
        return Exp.apply(self)

    def sigmoid(self) -> Scalar:
        r""":math:`\sigma(x) = \frac{1}{1 + e^{-x}}`"""
        return Sigmoid.apply(self)

    def relu(self) -> Scalar:
        r""":math:`\max(x, 0)`"""
        return ReLU.apply(self)

    # ---- the Variable protocol used by minitorch.autodiff ----

    def is_leaf(self) -> bool:
        """True if the user made this Scalar (it has a history but no function)."""
        return self.history is not None and self.history.last_fn is None

    def is_constant(self) -> bool:
        """True if this Scalar wants no derivative (it has no history at all)."""
        return self.history is None

    @property
    def parents(self) -> Iterable[Variable]:
        """The inputs of the function that made this Scalar."""
        assert self.history is not None, "a constant has no graph"
        return self.history.inputs

    def accumulate_derivative(self, x: float) -> None:
        """Add ``x`` to ``derivative`` (leaves only): a leaf used in several places, or
        several backward passes, sums their contributions, as ``.grad`` does in PyTorch."""
        assert self.is_leaf(), "only leaves keep a derivative"
        if self.derivative is None:
            self.derivative = 0.0
        self.derivative += x

    def chain_rule(self, d_output: float) -> Iterable[tuple[Variable, float]]:
        r"""Pair each input :math:`x_i` of the last function :math:`f` with
        :math:`d \cdot \frac{\partial f}{\partial x_i}`, where :math:`d` is ``d_output``."""
        history = self.history
        assert history is not None and history.last_fn is not None and history.ctx is not None
        # BEGIN SOLUTION 1.3
        derivatives = history.last_fn._backward(history.ctx, d_output)
        return list(zip(history.inputs, derivatives))
        # END SOLUTION

    def backward(self, d_output: float = 1.0) -> None:
        r"""Add :math:`d \cdot \frac{\partial \text{self}}{\partial \text{leaf}}` to every
        leaf's ``derivative``, where :math:`d` is ``d_output``."""
        backpropagate(self, d_output)
