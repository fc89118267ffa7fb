"""The base of ``minitorch.distributions``: shapes, parameter and value checks, ``expand``, the repr.

A distribution holds tensors of parameters; its ``batch_shape`` is their broadcast shape (one
distribution per element), its ``event_shape`` the shape of one draw. Parameters are checked
against ``arg_constraints`` and values given to ``log_prob`` against ``support`` when
``validate_args`` is on (PyTorch's default), with PyTorch's messages.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..creation import tensor as make_tensor
from ..dtypes import get_default_dtype
from ..ops.strided import broadcast_shapes
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .constraints import Constraint

#: PyTorch checks parameters and values by default
VALIDATE_ARGS_DEFAULT = True


def as_tensor(value: Any, like: Optional[Tensor] = None) -> Tensor:
    """``value`` as a tensor (a number becomes one of the default float dtype, or ``like``'s)."""
    if isinstance(value, Tensor):
        return value
    dtype = like.dtype if like is not None else get_default_dtype()
    return make_tensor(float(value), dtype=dtype, device=like.device if like is not None else None)


def broadcast_all(*values: Any) -> list[Tensor]:
    """Numbers and tensors as tensors of one broadcast shape (numbers take the tensors' dtype)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    tensors = [as_tensor(v, like) for v in values]
    shape = tuple(broadcast_shapes(*(t.shape for t in tensors)))
    return [t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors]


def sum_rightmost(value: Tensor, dims: int) -> Tensor:
    """``value`` summed over its ``dims`` rightmost dimensions."""
    return value.reshape(*value.shape[: value.dim() - dims], -1).sum(-1) if dims > 0 else value


class Distribution:
    """``batch_shape``, ``event_shape``, ``sample``/``rsample``, ``log_prob``, ``entropy``, ``mean``, ``variance``."""

    #: parameter name -> the constraint its values must satisfy (checked when ``validate_args`` is on)
    arg_constraints: dict[str, Constraint] = {}
    support: Optional[Constraint] = None
    has_rsample = False
    has_enumerate_support = False
    _validate_default = VALIDATE_ARGS_DEFAULT

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = (),
                 validate_args: Optional[bool] = None) -> None:
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if name not in self.__dict__ and not isinstance(getattr(type(self), name, None), property):
                    continue  # a parameter computed on demand from another one
                value = getattr(self, name)
                if not bool(constraint.check(value).all().item()):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of distribution "
                        f"{self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n{value}"
                    )

    @classmethod
    def set_default_validate_args(cls, value: bool) -> None:
        Distribution._validate_default = bool(value)

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Sequence[int] = ()) -> tuple[int, ...]:
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def expand(self, batch_shape: Sequence[int], _instance: Optional[Distribution] = None) -> Distribution:
        """The distribution with its parameters broadcast (as views) to ``batch_shape``.

        Each parameter held (those of ``arg_constraints`` computed so far) keeps its
        trailing (event) dimensions; subclasses with other state override this.
        """
        batch_shape = tuple(batch_shape)
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        kept = len(self._batch_shape)
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if isinstance(value, Tensor):
                setattr(new, name, value.expand(*batch_shape, *value.shape[kept:]))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """A draw of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sampling (rsample)")

    def sample_n(self, n: int) -> Tensor:
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's checks of a ``log_prob`` argument: a tensor, its event shape, broadcastable, in ``support``."""
        if not self._validate_args:
            return
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dims = len(self._event_shape)
        if tuple(value.shape[value.dim() - event_dims:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}.")
        actual, expected = tuple(value.shape), tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {Size(actual)} vs {Size(expected)}.")
        support = self.support
        if support is None or constraints.is_dependent(support):
            return
        if not bool(support.check(value).all().item()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the support "
                f"({support!r}) of the distribution {self!r}, but found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = [name for name in self.arg_constraints if name in self.__dict__]
        parts = []
        for name in shown:
            value = self.__dict__[name]
            parts.append(f"{name}: {value if value.numel() == 1 else value.size()}")  # a 0-d tensor formats as its number
        return f"{type(self).__name__}({', '.join(parts)})"
