"""NumPy arrays in a checkpoint: ``minitorch.save(np_array, f)``, as ``torch.save`` keeps them.

An array is stored like a tensor, as a row of the tensor table holding its elements, and
the tree names it::

    {"type": "ndarray", "index": 3, "fortran": false}

Loading gives back a NumPy array of the same dtype, shape and values, owning its memory
(writable), in Fortran order when the saved array was (as a pickled array reloads). One
array reached twice in the object loads as one array. An array of a dtype minitorch has no
tensor type for (strings, objects, complex numbers, ...) is refused when saving, naming it.

As in PyTorch, ``load(weights_only=True)`` (the default) refuses a file holding arrays
unless they are allowlisted: ``add_safe_globals([np.ndarray])``, or the entries PyTorch's
message names (``numpy._core.multiarray._reconstruct`` among them); ``weights_only=False``
loads them. Either way nothing from the file runs: an array is plain bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .errors import SerializationError, UnpicklingError
from .safe_globals import get_safe_globals, is_numpy_reconstruct

if TYPE_CHECKING:
    from .tree import TreeEncoder

ARRAY_TAG = "ndarray"
INDEX_KEY = "index"
FORTRAN_KEY = "fortran"


def arrays_allowed() -> bool:
    """Whether the allowlist lets ``weights_only=True`` load NumPy arrays."""
    return any(entry is np.ndarray or is_numpy_reconstruct(entry) for entry in get_safe_globals())


class ArrayEncoder:
    """The part of :class:`~minitorch.serialization.tree.TreeEncoder` that saves NumPy arrays."""

    def __init__(self) -> None:
        self._done: dict[int, int] = {}
        self._keep_alive: list[np.ndarray] = []  # ids stay unique while the arrays live

    def encode(self, tree: "TreeEncoder", value: np.ndarray, path: str) -> dict:
        """The JSON form of ``value``; its elements join ``tree``'s tensor table."""
        key = id(value)
        if key not in self._done:
            native = value.dtype.newbyteorder("=") if value.dtype.byteorder not in ("=", "|") else value.dtype
            try:
                dtypes.from_numpy_dtype(native)
            except TypeError:
                raise SerializationError(
                    f"can't save {path}: a numpy.ndarray of dtype {value.dtype} has no minitorch tensor type "
                    f"(arrays of {', '.join(str(d.numpy) for d in dtypes.ALL_DTYPES)} can be saved)"
                ) from None
            copy = np.array(value, dtype=native, order="C", copy=True)  # a snapshot, whatever happens to the array later
            self._done[key] = tree.tensor_index(Tensor._from_numpy_array(copy))
            self._keep_alive.append(value)
        fortran = bool(value.ndim > 1 and value.flags.f_contiguous and not value.flags.c_contiguous)
        return {"type": ARRAY_TAG, INDEX_KEY: self._done[key], FORTRAN_KEY: fortran}


class ArrayDecoder:
    """Rebuilds the arrays of a file; ``array_at(index, path)`` reads a table row's elements."""

    def __init__(self, weights_only: bool, array_at: Callable[[int, str], np.ndarray]) -> None:
        self._weights_only = weights_only
        self._array_at = array_at
        self._done: dict[int, np.ndarray] = {}

    def decode(self, node: dict, path: str) -> np.ndarray:
        if self._weights_only and not arrays_allowed():
            raise UnpicklingError(
                f"Weights only load failed: the checkpoint holds a NumPy array (at {path}), and weights_only=True "
                "loads arrays only when they are allowlisted. If you trust the source of this file, load it with "
                "weights_only=False, or allowlist arrays with minitorch.serialization.add_safe_globals([numpy.ndarray]) "
                "or the minitorch.serialization.safe_globals([numpy.ndarray]) context manager."
            )
        index = node.get(INDEX_KEY)
        fortran = node.get(FORTRAN_KEY, False)
        if type(index) is not int or index < 0:
            raise SerializationError(f"malformed checkpoint at {path}: an array's 'index' must be a non-negative "
                                     f"integer, got {index!r:.80}")
        if type(fortran) is not bool:
            raise SerializationError(f"malformed checkpoint at {path}: an array's 'fortran' must be a bool, "
                                     f"got {fortran!r:.80}")
        if index not in self._done:
            values = self._array_at(index, path)
            self._done[index] = np.asfortranarray(values) if fortran else values
        return self._done[index]
