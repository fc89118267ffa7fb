"""The base of ``minitorch.distributions``: shapes, parameter checks and the repr, PyTorch's way.

A distribution holds tensors of parameters; its ``batch_shape`` is their broadcast shape (one
distribution per element), its ``event_shape`` the shape of one draw. Parameters are checked
when ``validate_args`` is on (PyTorch's default), with PyTorch's message.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..autograd.grad_mode import no_grad
from ..creation import tensor as make_tensor
from ..dtypes import get_default_dtype
from ..size import Size
from ..tensor import Tensor

#: PyTorch checks parameters and values by default
VALIDATE_ARGS_DEFAULT = True


def as_tensor(value: Any, like: Optional[Tensor] = None) -> Tensor:
    """``value`` as a tensor (a number becomes one of the default float dtype, or ``like``'s)."""
    if isinstance(value, Tensor):
        return value
    dtype = like.dtype if like is not None else get_default_dtype()
    return make_tensor(float(value), dtype=dtype, device=like.device if like is not None else None)


class Distribution:
    """``batch_shape``, ``event_shape``, ``sample``/``rsample``, ``log_prob``, ``entropy``, ``mean``, ``variance``."""

    #: parameter name -> (description of the constraint, check returning a bool tensor of valid entries)
    arg_constraints: dict[str, tuple[str, Callable[[Tensor], Tensor]]] = {}
    has_rsample = False
    _validate_default = VALIDATE_ARGS_DEFAULT

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = (),
                 validate_args: Optional[bool] = None) -> None:
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, (description, check) in self.arg_constraints.items():
                if name not in self.__dict__:
                    continue  # a parameter computed on demand from another one
                value = self.__dict__[name]
                if not bool(check(value).all().item()):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of distribution "
                        f"{self!r} to satisfy the constraint {description}, but found invalid values:\n{value}"
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

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def _check_support(self, value: Tensor, description: str, valid: Tensor) -> None:
        if self._validate_args and not bool(valid.all().item()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the support "
                f"({description}) of the distribution {self!r}, but found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = [name for name in self.arg_constraints if name in self.__dict__]
        parts = []
        for name in shown:
            value = self.__dict__[name]
            parts.append(f"{name}: {value if value.numel() == 1 else value.size()}")  # a 0-d tensor formats as its number
        return f"{type(self).__name__}({', '.join(parts)})"
