r"""The 32-bit Mersenne Twister (MT19937) as PyTorch's CPU generator runs it, and its state bytes.

PyTorch's CPU generator is one MT19937 stream: ``manual_seed(s)`` seeds it with the low 32 bits
of ``s``, and every sampler turns its 32-bit words into numbers (:mod:`minitorch.draws` says
how). minitorch runs the same stream, so a seed gives the numbers PyTorch gives.

The twister itself is NumPy's ``MT19937`` bit generator, which draws the same words. Seeding is
written out here (it is short, and it is what makes the streams equal):

.. math::

    k_0 = s \bmod 2^{32}, \qquad k_i = (1812433253\,(k_{i-1} \oplus (k_{i-1} \gg 30)) + i) \bmod 2^{32},
    \quad i = 1, \dots, 623.

A 64-bit word is two 32-bit words, the first one high: :math:`(w_1 \ll 32) \,|\, w_2`.

The state is kept as PyTorch lays it out (5056 bytes, :data:`STATE_LAYOUT`), so
``get_rng_state()`` tensors can be exchanged with PyTorch: the seed, the twister's 624 words
and its position, and the second normal sample of a Box-Muller pair held for the next draw.
"""

from __future__ import annotations

import struct
import threading
from typing import Optional

import numpy as np

#: words of the twister's state
STATE_WORDS = 624
#: the multiplier of the seeding recurrence
SEED_MULTIPLIER = 1812433253
WORD_MASK = 0xFFFFFFFF
WORD_BITS = 32
#: PyTorch's CPU generator state: initial seed, words left before the next twist, seeded flag,
#: next position, the 624 words (each in 64 bits), three legacy normal fields (the middle one the
#: held double sample), its valid flag, then the held float sample and its flag (C struct padding)
STATE_LAYOUT = struct.Struct(f"<QiiQ{STATE_WORDS}QdddixxxxfBxxx")


def seeded_words(seed: int) -> np.ndarray:
    """The twister's 624 state words after seeding with the low 32 bits of ``seed``."""
    words = np.empty(STATE_WORDS, dtype=np.uint32)
    word = seed & WORD_MASK
    words[0] = word
    for i in range(1, STATE_WORDS):
        word = (SEED_MULTIPLIER * (word ^ (word >> 30)) + i) & WORD_MASK
        words[i] = word
    return words


class MersenneStream:
    """One MT19937 stream with PyTorch's seed handling and its held normal samples.

    ``lock`` guards compound draws (a Box-Muller fill reads words twice and may leave a sample
    held), so two threads drawing at once never interleave inside one draw. Reading or setting
    the state also holds the twister's own lock, which each read of words holds, so a state is
    never one of a draw half done.
    """

    def __init__(self, seed: int) -> None:
        self.bits = np.random.MT19937()
        self.lock = threading.RLock()
        self.initial_seed = 0
        self.next_double_normal: Optional[float] = None
        self.next_float_normal: Optional[float] = None
        self._seeded_words = np.empty(0, dtype=np.uint32)
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """Seed with ``seed`` (an unsigned 64-bit number; its low 32 bits seed the twister)."""
        with self.lock, self.bits.lock:
            self.initial_seed = seed
            self._seeded_words = seeded_words(seed)
            self.bits.state = {"bit_generator": "MT19937", "state": {"key": self._seeded_words, "pos": STATE_WORDS}}
            self.next_double_normal = None
            self.next_float_normal = None

    def words32(self, count: int) -> np.ndarray:
        """The next ``count`` 32-bit words (as uint64, the width the transforms compute in)."""
        return self.bits.random_raw(count).astype(np.uint64)

    def words64(self, count: int) -> np.ndarray:
        """The next ``count`` 64-bit words, each made of two 32-bit words, the first one high."""
        pairs = self.words32(2 * count)
        return (pairs[0::2] << np.uint64(WORD_BITS)) | pairs[1::2]

    def to_bytes(self) -> bytes:
        """The state in PyTorch's layout."""
        with self.lock, self.bits.lock:
            state = self.bits.state["state"]
            position = int(state["pos"])
            # PyTorch's next position is 0 right after seeding and 624 after a full pass of draws;
            # both mean "twist before the next word", told apart by the words being the seeded ones
            fresh = position == STATE_WORDS and np.array_equal(state["key"], self._seeded_words)
            double_held = self.next_double_normal is not None
            float_held = self.next_float_normal is not None
            return STATE_LAYOUT.pack(
                self.initial_seed, STATE_WORDS + 1 - position, 1, 0 if fresh else position, *state["key"].astype(np.uint64).tolist(),
                0.0, self.next_double_normal if double_held else 0.0, 0.0, int(double_held),
                self.next_float_normal if float_held else 0.0, int(float_held),
            )

    def restore(self, raw: bytes) -> None:
        """Set the state from :meth:`to_bytes` (or PyTorch's ``get_rng_state``); a bad state raises."""
        if len(raw) != STATE_LAYOUT.size:
            raise RuntimeError(f"Expected a state of {STATE_LAYOUT.size} bytes, got {len(raw)}")
        fields = STATE_LAYOUT.unpack(raw)
        initial_seed, left = fields[0], fields[1]
        words = fields[4 : 4 + STATE_WORDS]
        normal_y, double_held, float_sample, float_held = fields[4 + STATE_WORDS + 1], *fields[-3:]
        if not 1 <= left <= STATE_WORDS:
            raise RuntimeError(f"Invalid state: the words left ({left}) must be in [1, {STATE_WORDS}]")
        if max(words) > WORD_MASK:
            raise RuntimeError("Invalid state: a twister word does not fit in 32 bits")
        if double_held not in (0, 1) or float_held not in (0, 1):
            raise RuntimeError("Invalid state: bad held-sample flag")
        with self.lock, self.bits.lock:
            self.initial_seed = initial_seed
            self._seeded_words = seeded_words(initial_seed)
            self.bits.state = {"bit_generator": "MT19937",
                               "state": {"key": np.asarray(words, dtype=np.uint32), "pos": STATE_WORDS + 1 - left}}
            self.next_double_normal = normal_y if double_held else None
            self.next_float_normal = float_sample if float_held else None


__all__ = ["MersenneStream", "STATE_LAYOUT", "seeded_words"]
