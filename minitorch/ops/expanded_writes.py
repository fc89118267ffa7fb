"""Writes into an expanded tensor (a broadcast dim: stride 0, size > 1), which PyTorch 2.x still
makes for ``index_fill_``, ``index_put_`` and ``masked_fill_``, with a deprecation warning.

Nothing here is imported from the tensor module at run time, so ``Tensor.masked_fill_`` can use it.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

if TYPE_CHECKING:
    from ..tensor import Tensor

#: what PyTorch says when ``op`` writes into an expanded tensor ({0}: the op, {1}: the indexing it names)
EXPANDED_WRITE_WARNING = (
    "Use of {0} on expanded tensors is deprecated. Please clone() the tensor before performing this "
    "operation. This also applies to advanced indexing e.g. {1}"
)


def warn_expanded_write(op: str, example: str) -> None:
    """PyTorch's deprecation warning for ``op`` writing into an expanded tensor (for the caller's caller)."""
    warnings.warn(EXPANDED_WRITE_WARNING.format(op, example), UserWarning, stacklevel=4)


def fill_where_shared(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``self.masked_fill_(mask, value)`` for a ``self`` whose elements share memory (an expanded
    tensor), as PyTorch 2.x still does it: each memory location that some True position of
    ``mask`` reaches gets ``value`` (every write writes the same value, so the order does not
    matter). Written through the view with each broadcast dim cut to one element, where the mask
    is True along it anywhere."""
    chosen = mask.expand(self.shape)
    compact = self
    for d, (size, stride) in enumerate(zip(self.shape, self._data.strides)):
        if stride == 0 and size > 1:
            chosen = chosen.any(d, keepdim=True)
            compact = compact.narrow(d, 0, 1)
    compact.masked_fill_(chosen, value)
    return self


def put_where_shared(self: Tensor, indices: Sequence[Optional[Tensor]], values: Tensor, accumulate: bool) -> Tensor:
    """``self.index_put_(indices, values, accumulate)`` for an expanded ``self``, as PyTorch's CPU kernel
    makes it: position by position in the order of the indexed result, each a write (the last one
    to a memory location wins) or, with ``accumulate``, an addition into that location. Computed on
    the host over the view with each broadcast dim cut to one element (one element per location),
    then copied into it."""
    broadcast = [d for d, (size, stride) in enumerate(zip(self.shape, self._data.strides)) if stride == 0 and size > 1]
    compact = self
    for d in broadcast:
        compact = compact.narrow(d, 0, 1)
    key = tuple(slice(None) if index is None else index.numpy(force=True) for index in indices)
    picked = np.arange(self.numel()).reshape(tuple(self.shape))[key]
    where = list(np.unravel_index(picked.reshape(-1), tuple(self.shape)))
    for d in broadcast:
        where[d] = np.zeros_like(where[d])
    stored = compact.numpy(force=True).copy()
    written = np.broadcast_to(values.numpy(force=True), picked.shape).reshape(-1).astype(stored.dtype)
    if accumulate:
        np.add.at(stored, tuple(where), written)
    else:
        stored[tuple(where)] = written  # a repeated location keeps the last value, as the kernel's loop does
    compact.copy_(compact.new_tensor(stored))
    return self
