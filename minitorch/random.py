"""The global random number generator behind ``rand``, ``randn``, ``randint`` and dropout.

:data:`default_generator` is a :class:`~minitorch.generator.Generator` (the Mersenne
Twister stream of PyTorch's CPU generator, so a seed gives PyTorch's numbers) seeded by
:func:`manual_seed`, which seeds the cuda device's generator too, as PyTorch's does. Numbers
are drawn on the host, so a seed gives the same values on every backend and device. The
state is a uint8 tensor in PyTorch's layout, safe to store in a checkpoint and to restore
exactly.

As PyTorch's default generator, it is one for the whole process: threads may draw from it
at once (each draw holds the stream's lock), in whatever order they come.
"""

from __future__ import annotations

from .generator import Generator, default_generator_of, manual_seed_every_default
from .tensor import Tensor

#: the generator every random function of cpu tensors draws from
default_generator: Generator = default_generator_of("cpu")


def manual_seed(seed: int) -> Generator:
    """Seed every default generator (cpu and cuda): the same seed gives the same numbers afterwards.

    Returns the cpu generator, as ``torch.manual_seed`` does.
    """
    return manual_seed_every_default(seed)


def seed() -> int:
    """Seed from a non-deterministic source and return the seed used."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed last set by :func:`manual_seed` or :func:`seed`."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore a state returned by :func:`get_rng_state`."""
    default_generator.set_state(new_state, caller="set_rng_state")
