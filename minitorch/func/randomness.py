"""What a random operation does inside ``vmap`` (its ``randomness`` argument).

``vmap`` runs the function once per slice, so each slice draws its own numbers
(``'different'``) unless told otherwise: ``'same'`` rewinds the default generators before
each slice, so every slice sees the numbers the first one drew, and ``'error'`` (PyTorch's
default) refuses every draw, because the caller did not say which of the two was meant.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Callable, ContextManager, Iterator

from ..generator import default_generator_of, default_generators, draws_forbidden

MODES = ("error", "different", "same")
REFUSAL = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
           "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def checked_mode(randomness: str) -> str:
    if randomness not in MODES:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return randomness


def random_draws(randomness: str) -> ContextManager[None]:
    """Around one call of the function: draws refused for ``'error'``, allowed otherwise."""
    return draws_forbidden(REFUSAL) if randomness == "error" else nullcontext()


@contextmanager
def rewinding(randomness: str) -> Iterator[Callable[[], None]]:
    """Yields ``rewind()``, to call before each slice: for ``'same'`` it puts every default
    generator back where it stood when the block began; otherwise it does nothing."""
    if randomness != "same":
        yield lambda: None
        return
    # The cuda generator too, though no draw may have made it yet: made lazily by the first
    # slice's draw, it would escape the rewind and the slices would differ.
    default_generator_of("cuda")
    saved = [(generator, generator.get_state()) for generator in default_generators()]

    def rewind() -> None:
        for generator, state in saved:
            generator.set_state(state)

    yield rewind
