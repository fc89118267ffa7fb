r"""Step 1: automatic differentiation, independent of what a value is.

Every computation builds a graph: each result remembers the function that made it and the
inputs it came from. To differentiate, we walk that graph backwards from the output,
applying the chain rule at each node:

.. math::
    \frac{\partial \text{out}}{\partial x} = \sum_{\text{uses } y = f(\dots, x, \dots)}
    \frac{\partial \text{out}}{\partial y} \cdot \frac{\partial f}{\partial x}

The code here only talks to values through the small :class:`Variable` protocol. Scalars
use it directly; tensors (step 2) run the same two ideas, a topological order and one
chain-rule loop, in :mod:`minitorch.autograd.engine`, over nodes that also free their saved
values and call hooks.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol

#: default step :math:`\epsilon` for :func:`central_difference`
DEFAULT_EPSILON = 1e-6


def central_difference(
    f: Callable[..., float], *vals: float, arg: int = 0, epsilon: float = DEFAULT_EPSILON
) -> float:
    r"""Approximate the partial derivative of ``f`` in its argument number ``arg``:

    .. math::
        \frac{\partial f}{\partial x_i} \approx
        \frac{f(\dots, x_i + \epsilon, \dots) - f(\dots, x_i - \epsilon, \dots)}{2\epsilon}

    Args:
        f: a function of ``len(vals)`` floats returning a float.
        *vals: the point :math:`(x_0, \dots, x_{n-1})` to differentiate at.
        arg: which argument :math:`i` to differentiate in.
        epsilon: the step :math:`\epsilon`.
    """
    # BEGIN SOLUTION 1.1
    above = list(vals)
    below = list(vals)
    above[arg] += epsilon
    below[arg] -= epsilon
    return (f(*above) - f(*below)) / (2 * epsilon)
    # END SOLUTION


class Variable(Protocol):
    """What autodiff needs from a value in the graph (a :class:`~minitorch.scalar.Scalar`)."""

    @property
    def unique_id(self) -> int:
        """A number no other variable has, used to recognise a variable met twice."""
        ...

    def is_leaf(self) -> bool:
        """True for a variable made by the user (not by a function) that wants a derivative."""
        ...

    def is_constant(self) -> bool:
        """True for a variable that wants no derivative (it is skipped entirely)."""
        ...

    @property
    def parents(self) -> Iterable[Variable]:
        """The inputs of the function that made this variable."""
        ...

    def chain_rule(self, d_output: Any) -> Iterable[tuple[Variable, Any]]:
        r"""Given :math:`\frac{\partial \text{out}}{\partial \text{self}}`, the pairs
        ``(parent, d_parent)`` with :math:`\frac{\partial \text{out}}{\partial \text{parent}}`
        through this one function."""
        ...

    def accumulate_derivative(self, x: Any) -> None:
        """Add ``x`` to this leaf's ``derivative``."""
        ...


def topological_sort(variable: Variable) -> list[Variable]:
    """Order the graph behind ``variable`` so that every variable comes before its parents.

    The output comes first, each non-constant variable appears exactly once and constants
    are left out. This is a depth-first search recording a variable once all its parents
    are recorded; reversing that record gives the order.

    Args:
        variable: the output to start from.

    Returns:
        The non-constant variables of the graph, ``variable`` first.
    """
    # BEGIN SOLUTION 1.4
    # An explicit stack instead of recursion, so long graphs don't hit Python's recursion
    # limit. Each entry is (variable, parents_done): we see a variable twice, once to push
    # its parents and once, after they are all recorded, to record it.
    recorded: list[Variable] = []
    seen: set[int] = set()
    stack: list[tuple[Variable, bool]] = [(variable, False)]
    while stack:
        var, parents_done = stack.pop()
        if parents_done:
            recorded.append(var)
            continue
        if var.is_constant() or var.unique_id in seen:
            continue
        seen.add(var.unique_id)
        stack.append((var, True))
        for parent in var.parents:
            stack.append((parent, False))
    recorded.reverse()
    return recorded
    # END SOLUTION


def backpropagate(variable: Variable, deriv: Any) -> None:
    r"""Run the chain rule from ``variable`` back to the leaves, adding
    :math:`\text{deriv} \cdot \frac{\partial \text{variable}}{\partial \text{leaf}}` to each
    leaf's ``derivative``.

    Visiting variables in :func:`topological_sort` order guarantees a variable's total
    derivative is complete (every use of it summed) before it is passed on to its parents.

    Args:
        variable: the output to differentiate.
        deriv: :math:`\frac{\partial \text{out}}{\partial \text{variable}}`, usually 1.
    """
    # BEGIN SOLUTION 1.4
    derivatives: dict[int, Any] = {variable.unique_id: deriv}
    for var in topological_sort(variable):
        d_var = derivatives.pop(var.unique_id)
        if var.is_leaf():
            var.accumulate_derivative(d_var)
            continue
        for parent, d_parent in var.chain_rule(d_var):
            if parent.is_constant():
                continue
            if parent.unique_id in derivatives:
                derivatives[parent.unique_id] = derivatives[parent.unique_id] + d_parent
            else:
                derivatives[parent.unique_id] = d_parent
    # END SOLUTION


class Context:
    """Scratch space a function's ``forward`` fills for its ``backward``.

    Args:
        no_grad: True when no derivative will be asked for, so nothing needs saving.
    """

    def __init__(self, no_grad: bool = False) -> None:
        self.no_grad = no_grad
        self._saved_values: tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        """Keep ``values`` for ``backward`` (skipped under ``no_grad``)."""
        if self.no_grad:
            return
        self._saved_values = values

    @property
    def saved_values(self) -> tuple[Any, ...]:
        """The values given to :meth:`save_for_backward`, in the same order."""
        return self._saved_values
