"""``map_location``: where each loaded tensor lands.

Every tensor is read into host memory first, then placed:

- ``None``: back where it was saved (``'cpu'`` or ``'cuda:0'``);
- a string or :class:`minitorch.device`: there, whatever the saved location;
- a dict: ``{saved location: new location}``; locations it doesn't name stay as saved;
- a callable ``fn(tensor, saved_location)``: its result, a tensor, is used; ``None`` means
  "as saved". (PyTorch passes a storage; minitorch passes the host tensor.)

A tensor saved from a GPU loads on a machine without one with ``map_location='cpu'``.
"""

from __future__ import annotations

from typing import Any, Callable, Union

from .. import cuda
from ..device import device
from ..tensor import Tensor
from .errors import SerializationError

MapLocation = Union[None, str, device, dict, Callable[[Tensor, str], Any]]


def _location_name(value: Union[str, device]) -> str:
    """``'cuda'`` and ``'cuda:0'`` name the same place, as do ``'cpu'`` and ``device('cpu')``."""
    on = device(value)
    return "cpu" if on.type == "cpu" else f"{on.type}:{on.index or 0}"


def move_to(t: Tensor, location: Union[str, device]) -> Tensor:
    """``t`` (on the host) moved to ``location``, with a clear error when that device is missing."""
    target = device(location)
    if target.type == "cuda":
        if not cuda.is_available():
            raise SerializationError(
                "Attempting to deserialize object on a CUDA device but minitorch.cuda.is_available() is False. "
                "If you are running on a CPU-only machine, please use minitorch.load with "
                "map_location=minitorch.device('cpu') to map your tensors to the CPU."
            )
        count = cuda.device_count()
        if (target.index or 0) >= count:
            raise SerializationError(
                f"Attempting to deserialize object on CUDA device {target.index} but "
                f"minitorch.cuda.device_count() is {count}. Please use minitorch.load with map_location "
                "to map your tensors to an existing device."
            )
    return t if t.device == target else t.to(target)


class Placement:
    """A checked ``map_location``, applied to each tensor as it is loaded."""

    def __init__(self, map_location: MapLocation) -> None:
        if map_location is None or isinstance(map_location, (str, device)):
            self._fixed = None if map_location is None else _location_name(map_location)
        elif isinstance(map_location, dict):
            self._fixed = None
            map_location = {_location_name(k): _location_name(v) for k, v in map_location.items()}
        elif callable(map_location):
            self._fixed = None
        else:
            raise TypeError(
                "map_location must be None, a str, a minitorch.device, a dict or a callable, "
                f"got {type(map_location).__name__}"
            )
        self.map_location = map_location

    def place(self, t: Tensor, saved: str) -> Tensor:
        """Where the host tensor ``t``, saved at location ``saved``, should end up."""
        # BEGIN SOLUTION 8.5
        if self._fixed is not None:
            return move_to(t, self._fixed)
        if isinstance(self.map_location, dict):
            return move_to(t, self.map_location.get(saved, saved))
        if callable(self.map_location):
            result = self.map_location(t, saved)
            if result is None:
                return move_to(t, saved)
            if not isinstance(result, Tensor):
                raise TypeError(f"map_location must return a Tensor or None, got {type(result).__name__}")
            return result
        return move_to(t, saved)
        # END SOLUTION
