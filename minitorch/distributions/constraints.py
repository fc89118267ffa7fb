r"""Constraints: the set a parameter or a value lives in (``torch.distributions.constraints``).

A constraint's :meth:`Constraint.check` answers, element by element, whether a value lies in
the set; ``event_dim`` says how many rightmost dimensions make one element (a vector of a
simplex is one element, so its check has one dimension less than the value). The repr is
PyTorch's, since it appears in the error messages of parameter and value checks.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes
from ..linalg import eigvalsh
from ..tensor import Tensor


def _all_rightmost(valid: Tensor, dims: int) -> Tensor:
    """``valid`` reduced with *and* over its ``dims`` rightmost dimensions."""
    for _ in range(dims):
        valid = valid.all(-1)
    return valid


class Constraint:
    """A set of values; ``check(value)`` is a bool tensor, one entry per element of ``event_dim`` dims."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder whose set depends on other parameters: never checked (``is_dependent``)."""

    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete: bool = False, event_dim: int = 0) -> "_Dependent":
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is the placeholder :data:`dependent` (its parameters are not checked)."""
    return isinstance(constraint, _Dependent)


class _Real(Constraint):
    """:math:`\\mathbb{R}` (NaN excluded)."""

    def check(self, value: Tensor) -> Tensor:
        return value == value


class _Boolean(Constraint):
    r""":math:`\{0, 1\}`."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    r"""Integers in :math:`[\mathrm{lower}, \mathrm{upper}]`."""

    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    r"""Integers :math:`\ge \mathrm{lower}`."""

    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThan(Constraint):
    r""":math:`(\mathrm{lower}, \infty)`."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    r""":math:`[\mathrm{lower}, \infty)`."""

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value


class _LessThan(Constraint):
    r""":math:`(-\infty, \mathrm{upper})`."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    r""":math:`[\mathrm{lower}, \mathrm{upper}]`."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    r""":math:`[\mathrm{lower}, \mathrm{upper})`."""

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Multinomial(Constraint):
    r"""Count vectors :math:`x` with :math:`x_k \ge 0` and :math:`\sum_k x_k \le` ``upper_bound``.

    PyTorch checks only this, weaker, condition: the entries need not be integers, nor sum to exactly
    the bound (the Multinomial's ``log_prob`` takes the count from the value)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _Simplex(Constraint):
    r"""Vectors with :math:`x_i \ge 0` and :math:`\sum_i x_i = 1` (to within :math:`10^{-6}`)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = (value.tril() == value).all(-1).all(-1)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return value.new_full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=dtypes.bool_)


class _Symmetric(_Square):
    r"""Square matrices with :math:`A = A^\top` (to within :math:`10^{-6} + 10^{-5}|A|`, as ``isclose``)."""

    def check(self, value: Tensor) -> Tensor:
        if value.shape[-2] != value.shape[-1]:
            return super().check(value)
        mirrored = value.transpose(-1, -2)
        return ((value - mirrored).abs() <= 1e-6 + 1e-5 * mirrored.abs()).all(-1).all(-1)


class _PositiveDefinite(_Symmetric):
    r"""Symmetric matrices with :math:`x^\top A x > 0` for :math:`x \ne 0` (all eigenvalues positive).

    Unlike PyTorch, which answers only the symmetry check for a whole batch when one of its
    matrices is not symmetric, each matrix gets its own answer."""

    def check(self, value: Tensor) -> Tensor:
        symmetric = super().check(value)
        if not bool(symmetric.any().item()):
            return symmetric
        return symmetric & (eigvalsh(value.detach()) > 0).all(-1)


class _IndependentConstraint(Constraint):
    """``base`` with ``reinterpreted_batch_ndims`` more dimensions in each element."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        return _all_rightmost(self.base_constraint.check(value), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
multinomial = _Multinomial
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()

__all__ = [
    "Constraint", "boolean", "dependent", "greater_than", "greater_than_eq", "half_open_interval",
    "independent", "integer_interval", "interval", "is_dependent", "less_than", "lower_cholesky", "multinomial",
    "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer", "real",
    "real_vector", "simplex", "square", "symmetric", "unit_interval",
]
