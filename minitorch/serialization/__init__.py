"""Saving and loading: ``minitorch.save``/``minitorch.load`` and ``.safetensors`` exchange.

``save(obj, f)`` writes a tensor, a ``state_dict`` or a whole checkpoint (dicts, lists,
tuples, str, int, float, bool, None, tensors, dtypes, devices, Sizes and NumPy arrays, nested;
arrays load with ``weights_only=False`` or allowlisted, see :mod:`~minitorch.serialization.arrays`) to a path
or a binary file; ``load(f, map_location=None, weights_only=True)`` reads it back with
key order, int keys, dtypes, shapes and values exactly as saved.

``save(model, f)`` also writes a whole ``nn.Module``, as its class's import path and its
attributes' data (:mod:`minitorch.serialization.objects`); a function, lambda or open file
among them is refused, naming the attribute. ``load(f, weights_only=False)`` rebuilds it for
minitorch's own classes and for classes allowlisted with ``add_safe_globals([Net])`` or
``with safe_globals([Net]):`` (PyTorch's names, with ``get_safe_globals`` and
``clear_safe_globals``); ``weights_only=True``, the default as in PyTorch 2.6+, rebuilds
allowlisted classes only and refuses any other whole object with a message naming its class
and how to allow it.

The file is a zip archive of plain data (see :mod:`minitorch.serialization.format`):
``minitorch/header.json`` describes the object tree and a table of tensors, and
``minitorch/data/<i>`` holds tensor ``i``'s elements as raw little-endian bytes.

Threat model. A checkpoint may come from a stranger and be built to do harm. Loading one
(``load`` or ``load_safetensors``) guarantees:

- No code from the file runs: there is no pickle and no ``eval`` anywhere, and nothing is
  written anywhere.
- A whole-module record names its class by a string that is looked up, by equality, among
  the allowlisted classes and (with ``weights_only=False``) minitorch's own module classes,
  and nowhere else: no module is imported and no attribute of one is looked up, so a file
  naming ``os.system``, ``builtins.eval``, ``subprocess.Popen`` or a class of a module not
  yet imported is refused and that module stays unimported. A class found must be an
  ``nn.Module``; the loader calls only its ``__new__`` (never ``__init__``, ``__setattr__``
  or anything else of it) and fills the new object's ``__dict__`` with decoded plain data,
  after checking the state is a module's (parameter, buffer and submodule registries of the
  right kinds; hook tables empty, since hooks are code and never saved; attribute names
  plain identifiers, no dunders). At most ``MAX_OBJECTS`` (100,000) modules per file; a
  module reached twice is a reference to one already complete, so a file can't build a
  cycle. Allowlisting a class trusts its ``__new__`` and its methods: allowlist only your
  own classes.
- Every failure is a :class:`SerializationError` saying what is wrong (never a
  ``MemoryError``, a ``RecursionError`` or a crash), raised before the memory it guards is
  allocated: the zip structure first (each entry stored, unencrypted, safely named, inside
  the file; the entries' spans, read from their local headers, one after another without
  overlap and before the central directory, so their data adds up to at most the file's
  size), then the header's size (64 MB; 100 MB for ``.safetensors``, the reference limit),
  then its JSON, measured before it is parsed: at most ``MAX_JSON_DEPTH`` (603) levels
  deep, 1,000,000 objects and arrays and 4,000,000 values, so any header parses into at
  most about 300 MB of Python objects; then the tensor table: each record exactly as
  large as its dtype and shape imply, all of them together no larger than the file (for
  ``.safetensors``, offsets that tile the data section exactly).
- So tensors take at most the file's own size, and a hostile file is refused in time
  linear in its size, most in milliseconds: 400 overlapping entries in 17 MB (7 GB
  declared) in 3-15 ms, a 31 MB header of empty JSON objects in about 0.1 s.

Not covered: a well-formed file with wrong values (CRCs catch accidental damage, not an
edit; ``.safetensors`` has no checksum); the zip central directory of a file with very
many entries, which Python's ``zipfile`` parses into about 5 bytes of memory per byte
before any check; and legitimate size (a 10 GB checkpoint loads 10 GB).

Saving to a path (:mod:`minitorch.serialization.atomic`) is atomic: a crash or a
``kill -9`` mid-save leaves the previous file intact, and the next save to that path
removes the temporary file the killed one left (never that of a save still running). It
keeps the target's permission bits (and owner and group where allowed), follows symbolic
links, and raises ``OSError`` naming the target for a directory, a link loop, a missing
or unwritable folder (the folder must be writable: the new file is made there). Saving
to a file object writes to it as it is.

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
from .safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from .safetensors import load_safetensors, save_safetensors

__all__ = ["SerializationError", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "load",
           "load_safetensors", "safe_globals", "save", "save_safetensors"]
