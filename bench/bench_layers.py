"""Layer benchmarks (course step 5): conv2d forward+backward and a LeNet-style SGD step.

Both cases belong to the full suite (``bench/run.py``, group "layers", defined in
``bench/cases_nn.py``); this script runs only them, with the same options::

    python bench/bench_layers.py [--quick] [--repeats N] [--no-torch]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402 - sets the thread counts before NumPy is imported

if __name__ == "__main__":
    run.main(["--only", "^layers$", *sys.argv[1:]])
