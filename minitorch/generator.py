"""``minitorch.Generator``: one seeded PCG64 stream, and the default one of each device kind.

Every random number in minitorch comes from a :class:`Generator`: the global one
(``minitorch.random.default_generator``) behind ``rand``, ``randn``, ``randint`` and
dropout, the one of the cuda device (``minitorch.cuda.default_generators[0]``), and any
a user makes to keep a data loader's shuffling apart from the global seed::

    g = minitorch.Generator().manual_seed(42)
    train, test = minitorch.utils.data.random_split(dataset, [0.8, 0.2], generator=g)

Each is NumPy's PCG64. Numbers are drawn on the host (and copied to the device for cuda
tensors), so a seed gives the same values on every backend and device. The state is a
uint8 tensor of plain bytes, safe to store in a checkpoint and to restore exactly.

As PyTorch's default generators, they are one per device kind for the whole process:
threads may draw from them at once (NumPy holds the generator's lock through each draw).
"""

from __future__ import annotations

import secrets
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from . import dtypes
from .device import device as Device
from .dispatch import tensor_class

if TYPE_CHECKING:
    from .tensor import Tensor

#: bytes of one 128-bit PCG64 word
WORD_BYTES = 16
#: layout of the state: state word, increment word, has-cached-uint32 flag, cached uint32
STATE_BYTES = 2 * WORD_BYTES + 1 + 4
DEFAULT_SEED = 67280421310721
#: bits of a seed drawn by :meth:`Generator.seed`
RANDOM_SEED_BITS = 63


def _state_to_bytes(state: dict) -> bytes:
    inner = state["state"]
    return (
        int(inner["state"]).to_bytes(WORD_BYTES, "little")
        + int(inner["inc"]).to_bytes(WORD_BYTES, "little")
        + bytes([int(state["has_uint32"])])
        + int(state["uinteger"]).to_bytes(4, "little")
    )


def _bytes_to_state(raw: bytes) -> dict:
    return {
        "bit_generator": "PCG64",
        "state": {
            "state": int.from_bytes(raw[:WORD_BYTES], "little"),
            "inc": int.from_bytes(raw[WORD_BYTES : 2 * WORD_BYTES], "little"),
        },
        "has_uint32": raw[2 * WORD_BYTES],
        "uinteger": int.from_bytes(raw[2 * WORD_BYTES + 1 :], "little"),
    }


def read_state(bit_generator: np.random.BitGenerator) -> bytes:
    """``bit_generator``'s state as plain bytes, read under its lock.

    NumPy draws hold that lock (and may release the GIL while they fill an array), so a
    state read while another thread draws is never one of a draw half done.
    """
    with bit_generator.lock:
        return _state_to_bytes(bit_generator.state)


def write_state(bit_generator: np.random.BitGenerator, raw: bytes) -> None:
    """Restore bytes from :func:`read_state` into ``bit_generator``, under its lock."""
    state = _bytes_to_state(raw)
    with bit_generator.lock:
        bit_generator.state = state


def checked_seed(seed: int) -> int:
    """``seed`` as the unsigned 64-bit number PCG64 is seeded with (negative seeds wrap, as in PyTorch)."""
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise RuntimeError(f"Overflow when unpacking long: seed {seed} must fit in 64 bits")
    return seed % 2**64


def state_bytes(new_state: Any, caller: str) -> bytes:
    """The bytes of a state tensor from ``get_state``/``get_rng_state``, or a RuntimeError naming ``caller``."""
    if not isinstance(new_state, tensor_class()) or new_state.dtype is not dtypes.uint8 or new_state.numel() != STATE_BYTES:
        raise RuntimeError(
            f"{caller} expects a uint8 tensor of {STATE_BYTES} bytes from get_state, got "
            f"{getattr(new_state, 'dtype', type(new_state).__name__)} with "
            f"{new_state.numel() if isinstance(new_state, tensor_class()) else '?'} elements"
        )
    raw = bytes(new_state.detach().cpu().numpy().tobytes())
    if raw[2 * WORD_BYTES] not in (0, 1):
        raise RuntimeError(f"{caller}: corrupt state (bad cached-value flag)")
    return raw


class Generator:
    """An independent PCG64 stream: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``/``set_state``."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = Device(device)
        self._initial_seed = DEFAULT_SEED
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))

    def manual_seed(self, seed: int) -> "Generator":
        """Reseed; returns the generator itself so it chains: ``Generator().manual_seed(0)``."""
        self._initial_seed = checked_seed(seed)
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the seed used."""
        new_seed = secrets.randbits(RANDOM_SEED_BITS)
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        """The seed last given by :meth:`manual_seed` or :meth:`seed`."""
        return self._initial_seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor (restore it with :meth:`set_state`)."""
        raw = read_state(self._numpy.bit_generator)
        return tensor_class()._from_numpy_array(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor, caller: str = "Generator.set_state") -> "Generator":
        """Restore a state from :meth:`get_state`; a tensor of another kind or a corrupt state raises."""
        write_state(self._numpy.bit_generator, state_bytes(new_state, caller))
        return self

    def numpy_generator(self) -> np.random.Generator:
        """The NumPy generator behind this one (random functions and samplers draw from it)."""
        refusal = getattr(_FORBIDDEN, "message", None)
        if refusal is not None:
            raise RuntimeError(refusal)
        return self._numpy

    def __repr__(self) -> str:
        return f"<minitorch.Generator seed={self._initial_seed}>"


#: this thread's reason to refuse every draw (``vmap(..., randomness='error')``), None when draws are allowed
_FORBIDDEN = threading.local()


@contextmanager
def draws_forbidden(message: str) -> Iterator[None]:
    """Within the block, drawing from any generator in this thread raises ``RuntimeError(message)``."""
    previous = getattr(_FORBIDDEN, "message", None)
    _FORBIDDEN.message = message
    try:
        yield
    finally:
        _FORBIDDEN.message = previous


def default_generators() -> list[Generator]:
    """The default generators made so far (the cpu one always)."""
    default_generator_of("cpu")
    return list(_DEFAULTS.values())


#: the default generator of each device kind, made on first use: ``minitorch.manual_seed`` seeds them all
_DEFAULTS: dict[str, Generator] = {}


def default_generator_of(device_type: str) -> Generator:
    """The generator random tensors on ``device_type`` (``'cpu'``, ``'cuda'``) draw from."""
    generator = _DEFAULTS.get(device_type)
    if generator is None:
        generator = _DEFAULTS.setdefault(device_type, Generator(device_type))
    return generator


def manual_seed_every_default(seed: int) -> Generator:
    """Seed the default generator of every device kind; returns the cpu one (as ``torch.manual_seed``)."""
    seed = checked_seed(seed)
    for device_type in {"cpu", "cuda", *_DEFAULTS}:
        default_generator_of(device_type).manual_seed(seed)
    return default_generator_of("cpu")


__all__ = ["Generator"]
