"""``minitorch.Generator``: a random-number generator of one's own, apart from the global one.

Pass one to ``DataLoader(generator=...)``, ``RandomSampler`` or ``random_split`` to make
the shuffling reproducible without touching the global seed::

    g = minitorch.Generator().manual_seed(42)
    train, test = minitorch.utils.data.random_split(dataset, [0.8, 0.2], generator=g)

Like the global generator, it is NumPy's PCG64 and its state is a uint8 tensor of plain
bytes (the same layout as :func:`minitorch.get_rng_state`).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from . import random
from .device import device as Device
from .tensor import Tensor


class Generator:
    """An independent PCG64 stream: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``/``set_state``."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = Device(device)
        self._initial_seed = random.DEFAULT_SEED
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))

    def manual_seed(self, seed: int) -> "Generator":
        """Reseed; returns the generator itself so it chains: ``Generator().manual_seed(0)``."""
        seed = int(seed)
        if not -(2**63) <= seed < 2**64:
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} must fit in 64 bits")
        self._initial_seed = seed % 2**64
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the seed used."""
        new_seed = secrets.randbits(63)
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor (restore it with :meth:`set_state`)."""
        raw = random.read_state(self._numpy.bit_generator)
        return Tensor._from_numpy_array(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        from . import dtypes

        valid = isinstance(new_state, Tensor) and new_state.dtype is dtypes.uint8
        if not valid or new_state.numel() != random.STATE_BYTES:
            raise RuntimeError(f"Generator.set_state expects a uint8 tensor of {random.STATE_BYTES} bytes from get_state")
        random.write_state(self._numpy.bit_generator, bytes(new_state.cpu().numpy().tobytes()))
        return self

    def numpy_generator(self) -> np.random.Generator:
        """The NumPy generator behind this one (samplers draw their permutations from it)."""
        return self._numpy

    def __repr__(self) -> str:
        return f"<minitorch.Generator seed={self._initial_seed}>"


__all__ = ["Generator"]
