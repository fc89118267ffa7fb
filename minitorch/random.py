"""The random number generator behind ``rand``, ``randn``, ``randint`` and dropout.

One global generator (NumPy's PCG64) seeded by :func:`manual_seed`. Numbers are drawn on
the host, so a seed gives the same values on every backend and device. The state is a
uint8 tensor of plain bytes, safe to store in a checkpoint and to restore exactly.

As PyTorch's default generator, it is one for the whole process: threads may draw from it
at once (NumPy holds the generator's lock through each draw), in whatever order they come.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor

#: bytes of one 128-bit PCG64 word
WORD_BYTES = 16
#: layout of the state: state word, increment word, has-cached-uint32 flag, cached uint32
STATE_BYTES = 2 * WORD_BYTES + 1 + 4
DEFAULT_SEED = 67280421310721

_generator = np.random.Generator(np.random.PCG64(DEFAULT_SEED))
_initial_seed = DEFAULT_SEED


def default_generator() -> np.random.Generator:
    """The NumPy generator every random function draws from."""
    return _generator


def manual_seed(seed: int) -> None:
    """Seed the generator: the same seed gives the same numbers afterwards."""
    global _generator, _initial_seed
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise RuntimeError(f"Overflow when unpacking long: seed {seed} must fit in 64 bits")
    _initial_seed = seed % 2**64
    _generator = np.random.Generator(np.random.PCG64(_initial_seed))
    from . import cuda  # as PyTorch's manual_seed: the cuda generator gets the same seed

    cuda.manual_seed_all(seed)


def seed() -> int:
    """Seed from a non-deterministic source and return the seed used."""
    new_seed = secrets.randbits(63)
    manual_seed(new_seed)
    return new_seed


def initial_seed() -> int:
    """The seed last set by :func:`manual_seed` or :func:`seed`."""
    return _initial_seed


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


def get_rng_state() -> "Tensor":
    """The generator's state as a uint8 tensor."""
    from .tensor import Tensor

    raw = read_state(_generator.bit_generator)
    return Tensor._from_numpy_array(np.frombuffer(raw, dtype=np.uint8).copy())


def set_rng_state(new_state: "Tensor") -> None:
    """Restore a state returned by :func:`get_rng_state`."""
    from . import dtypes

    if getattr(new_state, "dtype", None) is not dtypes.uint8 or new_state.numel() != STATE_BYTES:
        raise RuntimeError(
            f"set_rng_state expects a uint8 tensor of {STATE_BYTES} bytes from get_rng_state, got "
            f"{getattr(new_state, 'dtype', type(new_state).__name__)} with "
            f"{new_state.numel() if hasattr(new_state, 'numel') else '?'} elements"
        )
    raw = bytes(new_state.cpu().numpy().tobytes())
    if raw[2 * WORD_BYTES] not in (0, 1):
        raise RuntimeError("set_rng_state: corrupt state (bad cached-value flag)")
    write_state(_generator.bit_generator, raw)
