"""Tensor methods older PyTorch code still calls: ``select``, ``dist``, ``ravel``, ``ndimension``,
``itemsize``/``nbytes``, ``get_device``, the legacy constructor ``new``, and ``resize_``/``resize_as_``.

Each is a short composition of existing ops (so autograd comes with them), except ``resize_``,
which changes the tensor's storage in place and, as in PyTorch, refuses a tensor that
requires grad.
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.grad_mode import no_grad
from ..shapes import normalize_dim, shape_from_args
from ..size import Size
from ..tensor import Tensor, add_tensor_methods
from ..toplevel import ravel
from .dtype_refusals import refuse_number


class LegacyMethods:
    """Attached to :class:`~minitorch.tensor.Tensor` below."""

    def select(self: Tensor, dim: int, index: int) -> Tensor:
        """The slice at ``index`` along ``dim``, that dimension removed (``x.select(1, 0)`` is ``x[:, 0]``)."""
        if self.dim() == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        dim = normalize_dim(dim, self.dim())
        return self[(slice(None),) * dim + (index,)]

    def ndimension(self: Tensor) -> int:
        """The old name of :meth:`dim`."""
        return self.dim()

    @property
    def itemsize(self: Tensor) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self: Tensor) -> int:
        """Bytes of the elements this tensor views (``numel() * itemsize``)."""
        return self.numel() * self.dtype.itemsize

    def get_device(self: Tensor) -> int:
        """The GPU index of a cuda tensor, -1 on the cpu (PyTorch's convention)."""
        return -1 if self.device.type == "cpu" else (self.device.index or 0)

    def dist(self: Tensor, other: Tensor, p: float = 2) -> Tensor:
        r"""The :math:`p`-norm of ``self - other`` (broadcast), over all elements."""
        refuse_number("dist", other, "other", 1)
        return (self - other).norm(p)

    def new(self: Tensor, *args: Any) -> Tensor:
        """The legacy constructor: ``x.new(2, 3)`` uninitialised, ``x.new([1, 2])`` from data,
        ``x.new()`` empty; always ``x``'s dtype and device."""
        if not args:
            return self.new_empty(0)
        if len(args) == 1 and isinstance(args[0], Tensor):  # PyTorch returns that very tensor
            other = args[0]
            if other.dtype != self.dtype or other.device != self.device:
                raise TypeError(f"new(): expected a tensor of dtype {self.dtype} on {self.device}, "
                                f"got {other.dtype} on {other.device}")
            return other
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return self.new_empty(args)
        if len(args) == 1 and isinstance(args[0], Size):
            return self.new_empty(tuple(args[0]))
        if len(args) == 1:
            return self.new_tensor(args[0])
        raise TypeError(f"new() received an invalid combination of arguments: {args!r}")

    def resize_(self: Tensor, *sizes: Any) -> Tensor:
        """This tensor, reshaped in place to ``sizes``: the first elements kept in row-major order,
        new ones uninitialised (zeros here). Refused for a tensor that requires grad, as PyTorch."""
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        shape = shape_from_args(sizes)
        if any(s < 0 for s in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
        wanted = math.prod(shape)
        with no_grad():
            flat = self.reshape(-1)
            if self.is_contiguous() and wanted <= flat.numel():  # the same storage, as PyTorch
                resized = flat[:wanted].view(shape)
            else:
                count = min(flat.numel(), wanted)
                resized = self.new_zeros(wanted)
                resized[:count] = flat[:count]
                resized = resized.view(shape)
        self.data = resized
        self._bump_version()
        return self

    def resize_as_(self: Tensor, other: Tensor) -> Tensor:
        """:meth:`resize_` to ``other``'s shape."""
        return self.resize_(other.shape)


add_tensor_methods({name: method for name, method in vars(LegacyMethods).items() if not name.startswith("__")})
add_tensor_methods({"ravel": ravel})  # the top-level function, as a method
