"""Saving and loading: ``minitorch.save``/``minitorch.load`` and ``.safetensors`` exchange.

``save(obj, f)`` writes a tensor, a ``state_dict`` or a whole checkpoint (dicts, lists,
tuples, str, int, float, bool, None, tensors, dtypes, devices and Sizes, nested) to a path
or a binary file; ``load(f, map_location=None, weights_only=True)`` reads it back with key
order, int keys, dtypes, shapes and values exactly as saved.

The file is a zip archive of plain data (see :mod:`minitorch.serialization.format`):
``minitorch/header.json`` describes the object tree and a table of tensors, and
``minitorch/data/<i>`` holds tensor ``i``'s elements as raw little-endian bytes. So:

- Loading never runs code from the file (there is no pickle anywhere), and ``weights_only``
  is accepted for PyTorch compatibility only.
- A damaged, truncated, hostile or foreign file raises :class:`SerializationError`, which
  says what is wrong; every size in the file is checked against the file's real size
  before memory is allocated, and nothing is ever written while loading.
- Saving a path is atomic: a crash mid-save leaves the previous file intact.
- Each tensor is saved as its own compact values: a view (a slice, a transpose) stores only
  its elements. One tensor reached twice in ``obj`` (or two tensors showing the same
  elements of the same storage, like ``w`` and ``w.detach()``) is stored once and loads as
  one tensor; other tensors that share storage (a tensor and a slice of it) load as
  independent copies.
- ``map_location`` ('cpu', 'cuda', a device, a dict or a callable, as in PyTorch) decides
  where tensors land; a checkpoint saved on a GPU loads on a CPU-only machine with
  ``map_location='cpu'``.

``save_safetensors(tensors, f, metadata=None)`` and ``load_safetensors(f, device='cpu')``
read and write the ``.safetensors`` format of the wider ecosystem, so weights move to and
from PyTorch (``safetensors.torch.load_file``/``save_file``).
"""

from __future__ import annotations

from .archive import load, save
from .errors import SerializationError
from .safetensors import load_safetensors, save_safetensors

__all__ = ["SerializationError", "load", "load_safetensors", "save", "save_safetensors"]
