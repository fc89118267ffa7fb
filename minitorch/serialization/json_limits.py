"""How big a JSON text will be as Python objects, measured before it is parsed.

``json.loads`` builds the whole object tree before anyone can look at it, and that tree
can be far larger than its text: ``{},`` is 3 bytes of JSON and about 75 bytes of Python
(an empty dict and a list slot), so 64 MB of empty objects would take 1.6 GB, and a
million ``[`` crash a parser that recurses (a program may have raised Python's recursion
limit). A reader of untrusted JSON therefore measures the text first:

- a byte is *inside a string* when an odd number of unescaped quotes precede it (a quote
  is escaped by an odd run of backslashes before it), and only bytes outside strings count;
- ``[`` and ``{`` are the containers, and their running balance with ``]`` and ``}`` is the
  nesting depth;
- every value or key after a container's first is preceded by ``,`` or ``:``, so
  containers + separators + 1 bound the number of values.

The scan is a handful of NumPy passes over fixed-size chunks: linear time and bounded
memory on any input. On text that is not valid JSON the counts may be off, but only after
the point where ``json.loads`` stops with an error, and the counts over the whole text are
never smaller than over the part it parses; so a text that passes can't parse into more
than its limits allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np

#: bytes measured at a time (the scan's memory is about 20 times this)
CHUNK_BYTES = 1 << 18
QUOTE, BACKSLASH = ord('"'), ord("\\")
OPENERS, CLOSERS, SEPARATORS = b"[{", b"]}", b",:"


@dataclass(frozen=True)
class JsonLimits:
    """The most a JSON text may hold: nesting depth, objects and arrays, and values
    (containers, keys and scalars together)."""

    depth: int
    containers: int
    values: int


@dataclass
class JsonSize:
    """What a JSON text holds outside its strings, and the scan's state between chunks."""

    depth: int = 0
    containers: int = 0
    separators: int = 0
    balance: int = 0  # open containers at the end of the text so far
    inside_string: int = 0  # 1 when the text so far ends inside a string
    backslashes: int = 0  # the run of backslashes the text so far ends with

    @property
    def values(self) -> int:
        return self.containers + self.separators + 1

    def add(self, chunk: np.ndarray) -> None:
        """Measure the next ``chunk`` of bytes."""
        quote = chunk == QUOTE
        backslash = chunk == BACKSLASH
        if self.backslashes or backslash.any():  # a quote after an odd run of backslashes is escaped
            positions = np.arange(chunk.size, dtype=np.int32)
            # the run of backslashes ending at each byte: its distance to the last other byte
            last_other = np.maximum.accumulate(np.where(backslash, -self.backslashes - 1, positions))
            run = positions - last_other
            quote[0] &= self.backslashes % 2 == 0
            quote[1:] &= run[:-1] % 2 == 0
            self.backslashes = int(run[-1])
        # parity of the quotes up to each byte (a uint8 sum wraps, but keeps its parity)
        outside = ((np.cumsum(quote, dtype=np.uint8) + self.inside_string) & 1) == 0
        opens = _any_of(chunk, OPENERS) & outside
        closes = _any_of(chunk, CLOSERS) & outside
        self.containers += int(np.count_nonzero(opens))
        self.separators += int(np.count_nonzero(_any_of(chunk, SEPARATORS) & outside))
        if opens.any() or closes.any():
            balance = np.cumsum(opens.view(np.int8) - closes.view(np.int8), dtype=np.int32) + self.balance
            self.depth = max(self.depth, int(balance.max()))
            self.balance = int(balance[-1])
        self.inside_string = int(not outside[-1])


def _any_of(chunk: np.ndarray, symbols: bytes) -> np.ndarray:
    first, second = symbols
    return (chunk == first) | (chunk == second)


def _chunks(text: bytes, chunk_bytes: int) -> Iterator[np.ndarray]:
    data = np.frombuffer(text, dtype=np.uint8)
    for start in range(0, data.size, chunk_bytes):
        yield data[start : start + chunk_bytes]


def measure(text: bytes, chunk_bytes: int = CHUNK_BYTES) -> JsonSize:
    """Depth, containers and separators of ``text`` outside its strings, without parsing it."""
    size = JsonSize()
    for chunk in _chunks(text, chunk_bytes):
        size.add(chunk)
    return size


def exceeded(text: bytes, limits: JsonLimits) -> Optional[str]:
    """Why ``text`` is too big to parse under ``limits``, or None when it is not.

    The scan stops at the first chunk where the text so far is already too big.
    """
    size = JsonSize()
    for chunk in _chunks(text, CHUNK_BYTES):
        size.add(chunk)
        if size.containers > limits.containers:
            return f"holds at least {size.containers} JSON objects and arrays, more than the limit of {limits.containers}"
        if size.values > limits.values:
            return f"holds up to {size.values} JSON values or more, more than the limit of {limits.values}"
        if size.depth > limits.depth:
            return f"is nested at least {size.depth} levels deep, deeper than the limit of {limits.depth}"
    return None
