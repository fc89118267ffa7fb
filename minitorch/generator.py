"""``minitorch.Generator``: one seeded Mersenne Twister stream, and the default one of each device kind.

Every random number in minitorch comes from a :class:`Generator`: the global one
(``minitorch.random.default_generator``) behind ``rand``, ``randn``, ``randint`` and
dropout, the one of the cuda device (``minitorch.cuda.default_generators[0]``), and any
a user makes to keep a data loader's shuffling apart from the global seed::

    g = minitorch.Generator().manual_seed(42)
    train, test = minitorch.utils.data.random_split(dataset, [0.8, 0.2], generator=g)

Each is the stream of PyTorch's CPU generator (:mod:`minitorch.mersenne`), and the samplers
draw from it as PyTorch's CPU kernels do (:mod:`minitorch.draws`): after
``manual_seed(s)``, ``rand``, ``randn``, ``randint``, ``randperm``, ``bernoulli``, dropout,
``multinomial`` and the in-place fills give PyTorch's numbers, and so do layers initialised
from them. Numbers are drawn on the host (and copied to the device for cuda tensors), so a seed
gives the same values on every backend and device; PyTorch's cuda generator is a different
algorithm, so on cuda the numbers are minitorch's own. The state is a uint8 tensor in PyTorch's
layout, safe to store in a checkpoint and to restore exactly.

As PyTorch's default generators, they are one per device kind for the whole process:
threads may draw from them at once (each draw holds the stream's lock).
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
from .mersenne import STATE_LAYOUT, MersenneStream

if TYPE_CHECKING:
    from .tensor import Tensor

#: the bytes of a state tensor
STATE_BYTES = STATE_LAYOUT.size
#: the seed of a generator nobody seeded (PyTorch's)
DEFAULT_SEED = 67280421310721
#: bits of a seed drawn by :meth:`Generator.seed`
RANDOM_SEED_BITS = 63


def checked_seed(seed: int) -> int:
    """``seed`` as the unsigned 64-bit number kept as the initial seed (negative seeds wrap, as in PyTorch)."""
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
    return bytes(new_state.detach().cpu().numpy().tobytes())


class Generator:
    """An independent Mersenne Twister stream: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``/``set_state``."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = Device(device)
        self._stream = MersenneStream(DEFAULT_SEED)
        self._numpy = np.random.Generator(self._stream.bits)

    def manual_seed(self, seed: int) -> "Generator":
        """Reseed; returns the generator itself so it chains: ``Generator().manual_seed(0)``."""
        self._stream.reseed(checked_seed(seed))
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the seed used."""
        new_seed = secrets.randbits(RANDOM_SEED_BITS)
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        """The seed last given by :meth:`manual_seed` or :meth:`seed`."""
        return self._stream.initial_seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor (restore it with :meth:`set_state`)."""
        raw = self._stream.to_bytes()
        return tensor_class()._from_numpy_array(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor, caller: str = "Generator.set_state") -> "Generator":
        """Restore a state from :meth:`get_state`; a tensor of another kind or a corrupt state raises."""
        raw = state_bytes(new_state, caller)
        try:
            self._stream.restore(raw)
        except RuntimeError as error:
            raise RuntimeError(f"{caller}: {error}") from None
        return self

    def stream(self) -> MersenneStream:
        """The stream PyTorch's samplers draw from (:mod:`minitorch.draws` turns its words into numbers)."""
        _refuse_if_forbidden()
        return self._stream

    def numpy_generator(self) -> np.random.Generator:
        """A NumPy generator over this stream's words (it advances the same stream); minitorch's own
        samplers draw word by word as PyTorch's do instead (:mod:`minitorch.draws`)."""
        _refuse_if_forbidden()
        return self._numpy

    def __repr__(self) -> str:
        return f"<minitorch.Generator seed={self._stream.initial_seed}>"


#: this thread's reason to refuse every draw (``vmap(..., randomness='error')``), None when draws are allowed
_FORBIDDEN = threading.local()


def _refuse_if_forbidden() -> None:
    refusal = getattr(_FORBIDDEN, "message", None)
    if refusal is not None:
        raise RuntimeError(refusal)


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
