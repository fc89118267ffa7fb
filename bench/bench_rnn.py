"""Recurrent layer benchmarks: ``LSTM(64, 128)`` and ``GRU(64, 128)``, batch 32, 50 steps, forward + backward.

Both cases belong to the full suite (``bench/run.py``, group "recurrent", defined in
``bench/cases_rnn.py``); this script runs only them, with the same options, and adds the
time per step::

    python bench/bench_rnn.py [--quick] [--repeats N] [--no-torch]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402 - sets the thread counts before NumPy is imported

import cases_rnn  # noqa: E402
import harness  # noqa: E402


def per_step_lines(cases: list[harness.Case]) -> list[str]:
    """Each case's median time divided by its number of steps, and minitorch's ratio to PyTorch."""
    lines = []
    for case in cases:
        mine, theirs = case.median(harness.MINITORCH), case.median(harness.TORCH)
        if mine is None:
            continue
        text = f"{case.name}: per step minitorch {harness.format_time(mine / cases_rnn.STEPS)}"
        if theirs is not None:
            text += f", torch {harness.format_time(theirs / cases_rnn.STEPS)}, ratio {mine / theirs:.2f}x"
        lines.append(text)
    return lines


if __name__ == "__main__":
    measured = run.main(["--only", "^recurrent$", *sys.argv[1:]])
    print("\n".join(per_step_lines(measured)))
