"""Views taken in place: ``x.unsqueeze_(0)``, ``x.squeeze_()``, ``x.t_()``, ``x.transpose_(0, 1)``.

Each changes only the tensor's shape and strides (its storage, and every other view of it,
stay as they are) and, when the tensor is in a graph, its ``grad_fn`` becomes the view's node,
as in PyTorch (``UnsqueezeBackward1`` after ``unsqueeze_``). Like every in-place op, they are
refused with grad mode on for a leaf that requires grad. Also here: ``swapdims`` and
``swapaxes``, NumPy's names for ``transpose`` (``Tensor.swapaxes`` is an alias in tensor.py).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ..tensor import Tensor, _named, add_tensor_methods


def _become_view(self: Tensor, view: Tensor, name: str) -> Tensor:
    """Give ``self`` the geometry of ``view`` (a view of ``self`` just taken) and, in a graph, its node."""
    self._data = view._data
    if view.grad_fn is not None:
        self.grad_fn, self._output_nr = _named(view, name).grad_fn, 0
    return self


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002 - PyTorch's name
    """:meth:`~minitorch.Tensor.transpose` by NumPy's name."""
    return input.transpose(dim0, dim1)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:  # noqa: A002 - PyTorch's name
    """:meth:`~minitorch.Tensor.transpose` by NumPy's name."""
    return input.transpose(axis0, axis1)


class InplaceViewMethods:
    """Attached to :class:`~minitorch.tensor.Tensor` below."""

    def unsqueeze_(self: Tensor, dim: int) -> Tensor:
        self._check_inplace_allowed()
        return _become_view(self, self.unsqueeze(dim), "UnsqueezeBackward1")

    def squeeze_(self: Tensor, dim: Optional[Union[int, Sequence[int]]] = None) -> Tensor:
        self._check_inplace_allowed()
        # PyTorch numbers the in-place overloads after the three of ``squeeze``
        name = "SqueezeBackward3" if dim is None else "SqueezeBackward4" if isinstance(dim, int) else "SqueezeBackward5"
        return _become_view(self, self.squeeze(dim), name)

    def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
        self._check_inplace_allowed()
        return _become_view(self, self.transpose(dim0, dim1), "TransposeBackward1")

    def t_(self: Tensor) -> Tensor:
        self._check_inplace_allowed()
        return _become_view(self, self.t(), "TBackward1")

    def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
        return swapdims(self, dim0, dim1)

    def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
        return InplaceViewMethods.transpose_(self, dim0, dim1)

    def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
        return InplaceViewMethods.transpose_(self, axis0, axis1)


def _methods() -> dict[str, Any]:
    return {name: method for name, method in vars(InplaceViewMethods).items() if not name.startswith("__")}


add_tensor_methods(_methods())
