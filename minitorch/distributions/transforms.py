r"""Transforms :math:`y = f(x)` for :class:`TransformedDistribution` (``torch.distributions.transforms``).

A transform maps its ``domain`` onto its ``codomain``; ``inv`` is the inverse transform and
``log_abs_det_jacobian(x, y)`` is :math:`\log |\det \partial y / \partial x|` (one number per
element of ``domain.event_dim`` dimensions), the correction in the change of variables

.. math:: \log p_Y(y) = \log p_X(f^{-1}(y)) - \log |\det J_f(f^{-1}(y))|.

With ``cache_size=1`` a transform remembers its last ``(x, y)`` pair, so the inverse of a
sample it just produced is exact (``TanhTransform(cache_size=1)`` in SAC: no ``atanh(±1)``).
"""

from __future__ import annotations

import math
from numbers import Number
from typing import Any, Optional, Sequence

from ..creation import tensor as make_tensor
from ..nn.functional import softplus
from ..ops.strided import broadcast_shapes
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .constraints import Constraint
from .distribution import sum_rightmost


class Transform:
    """An invertible (or at least callable) map with the log-determinant of its Jacobian."""

    domain: Constraint = constraints.real
    codomain: Constraint = constraints.real
    bijective = False
    sign: Any = 1

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached: Optional[tuple[Tensor, Tensor]] = None

    @property
    def event_dim(self) -> int:
        return max(self.domain.event_dim, self.codomain.event_dim)

    @property
    def inv(self) -> Transform:
        return _InverseTransform(self)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with ``cache_size`` (itself when it already has that size)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:  # no parameters of its own
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size and self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size and self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        if self._cache_size:
            self._cached = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def inverse_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    r""":math:`f^{-1}` of a transform :math:`f`; its log-Jacobian is :math:`-\log|J_f(x)|` at :math:`x = f^{-1}(y)`."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(transform._cache_size)
        self._inner = transform

    @property
    def domain(self) -> Constraint:  # type: ignore[override]
        return self._inner.codomain

    @property
    def codomain(self) -> Constraint:  # type: ignore[override]
        return self._inner.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inner.bijective

    @property
    def sign(self) -> Any:  # type: ignore[override]
        return self._inner.sign

    @property
    def inv(self) -> Transform:
        return self._inner

    def __call__(self, x: Tensor) -> Tensor:
        return self._inner._inv_call(x)

    def _inv_call(self, y: Tensor) -> Tensor:
        return self._inner(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inner.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return self._inner.inverse_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return self._inner.forward_shape(shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inner == other._inner

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{self._inner!r}.inv"


class ComposeTransform(Transform):
    r""":math:`f_n \circ \dots \circ f_1`; log-Jacobians add (each summed over the event dims it lacks)."""

    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self) -> Constraint:  # type: ignore[override]
        """The first part's domain, with as many event dims as the whole chain needs."""
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        first = self.parts[0].domain
        return constraints.independent(first, event_dim - first.event_dim) if event_dim > first.event_dim else first

    @property
    def codomain(self) -> Constraint:  # type: ignore[override]
        """The last part's codomain, with as many event dims as the whole chain needs."""
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        last = self.parts[-1].codomain
        return constraints.independent(last, event_dim - last.event_dim) if event_dim > last.event_dim else last

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(part.bijective for part in self.parts)

    @property
    def sign(self) -> Any:  # type: ignore[override]
        sign: Any = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self) -> Transform:
        return ComposeTransform([part.inv for part in reversed(self.parts)], self._cache_size)

    def _call(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y: Tensor) -> Tensor:
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return x.new_zeros(tuple(x.shape))
        points = [x]
        for part in self.parts[:-1]:
            points.append(part(points[-1]))
        points.append(y)
        event_dim = self.domain.event_dim
        total: Any = 0
        for part, before, after in zip(self.parts, points[:-1], points[1:]):
            total = total + sum_rightmost(part.log_abs_det_jacobian(before, after), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return tuple(shape)

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(part) for part in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


#: the identity map, a composition of nothing
identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    r""":math:`y = e^x`, :math:`\log|J| = x`."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    r""":math:`y = x^a` on :math:`x > 0`, :math:`\log|J| = \log|a y / x|`."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.exponent = exponent if isinstance(exponent, Tensor) else _number_tensor(exponent)

    @property
    def sign(self) -> Any:  # type: ignore[override]
        return self.exponent.sign()

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and bool((self.exponent == other.exponent).all().item())

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()


class SigmoidTransform(Transform):
    r""":math:`y = \sigma(x) = 1 / (1 + e^{-x})` (kept inside :math:`[\mathrm{tiny}, 1 - \epsilon]`),
    :math:`\log|J| = -\mathrm{softplus}(-x) - \mathrm{softplus}(x)`."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        info = finfo(x.dtype)
        return x.sigmoid().clamp(info.tiny, 1 - info.eps)

    def _inverse(self, y: Tensor) -> Tensor:
        info = finfo(y.dtype)
        y = y.clamp(info.tiny, 1 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    r""":math:`y = \tanh x`, :math:`\log|J| = \log(1 - \tanh^2 x) = 2(\log 2 - x - \mathrm{softplus}(-2x))`
    (the stable form)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    """:math:`y = |x|` (not injective: the inverse picks :math:`x = y`)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    r""":math:`y = \mathrm{loc} + \mathrm{scale}\,x`, :math:`\log|J| = \log|\mathrm{scale}|`
    (summed over ``event_dim`` rightmost dims)."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def domain(self) -> Constraint:  # type: ignore[override]
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real, self._event_dim)

    codomain = domain  # type: ignore[assignment]

    @property
    def sign(self) -> Any:  # type: ignore[override]
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        return _same_value(self.loc, other.loc) and _same_value(self.scale, other.scale)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = tuple(x.shape)
        if isinstance(self.scale, Number):
            result = x.new_full(shape, math.log(abs(float(self.scale))))
        else:
            result = self.scale.abs().log()
        if self._event_dim:
            result = sum_rightmost(result, self._event_dim)
            shape = shape[: len(shape) - self._event_dim]
        return result.expand(*shape)

    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return _broadcast_with(shape, self.loc, self.scale)

    def inverse_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return _broadcast_with(shape, self.loc, self.scale)


def _number_tensor(value: Any) -> Tensor:
    return make_tensor(float(value))


def _same_value(a: Any, b: Any) -> bool:
    """Equal numbers, or tensors equal everywhere (a number and a tensor compare by value too)."""
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    equal = a == b
    return bool(equal.all().item()) if isinstance(equal, Tensor) else bool(equal)


def _broadcast_with(shape: Sequence[int], *params: Any) -> tuple[int, ...]:
    shapes = [tuple(p.shape) for p in params if isinstance(p, Tensor)]
    return tuple(broadcast_shapes(tuple(shape), *shapes))


__all__ = [
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform",
    "TanhTransform", "Transform", "identity_transform",
]
