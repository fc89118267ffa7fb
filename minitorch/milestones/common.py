"""What every milestone shares: its options, its result, the progress bar and the figure.

A milestone is a module with ``run(options) -> Outcome``; it seeds first (so the same
options give the same figures), trains with a ``tqdm`` progress bar and saves one PNG under
``options.out_dir``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

DEFAULT_OUT_DIR = Path("out")
DEFAULT_SEED = 0
#: pictures are small: they go into the docs as they are
FIGURE_DPI = 80


@dataclass(frozen=True)
class Options:
    """How to run a milestone: ``quick`` trains briefly (for tests), ``backend`` names the cpu kernels."""

    out_dir: Path = DEFAULT_OUT_DIR
    seed: int = DEFAULT_SEED
    quick: bool = False
    progress: bool = True
    backend: str = "cpu"


@dataclass
class Outcome:
    """What a milestone measured (name -> value), the picture it saved and any text it generated."""

    figures: dict[str, float] = field(default_factory=dict)
    picture: Optional[Path] = None
    samples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: what an independent check needs (the data, the learned weights), as NumPy arrays
    arrays: dict[str, Any] = field(default_factory=dict)


def progress(items: Iterable[Any], options: Options, description: str, total: Optional[int] = None) -> Any:
    """``items`` wrapped in a tqdm progress bar (hidden with ``options.progress`` off)."""
    from tqdm import tqdm

    return tqdm(items, desc=description, total=total, disable=not options.progress, leave=True)


class Stopwatch:
    """Seconds since creation: ``Stopwatch().elapsed``."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._start


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure: Any, out_dir: Path, name: str, tight: bool = True) -> Path:
    """Save ``figure`` as ``out_dir/name`` (PNG), close it and return the path (``tight``: tight layout first;
    off for figures placed by hand with a grid spec)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    if tight:
        figure.tight_layout()
    figure.savefig(path, dpi=FIGURE_DPI)
    pyplot().close(figure)
    return path


def batches(count: int, batch_size: int, generator: Any) -> Iterator[Any]:
    """Shuffled index batches covering ``range(count)`` once (``generator``: a NumPy ``Generator``)."""
    order = generator.permutation(count)
    for start in range(0, count, batch_size):
        yield order[start:start + batch_size]
