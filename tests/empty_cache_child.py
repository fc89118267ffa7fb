"""A child Python process that compiles with an empty Numba cache, and the JSON it reports.

Tests of what Numba compiles (which functions, their code, the target machine) need a process
that compiles afresh: in this one, the kernels may have been loaded from the cache already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable

#: a child compiles a few kernels: tens of seconds on a busy 2-core machine
CHILD_TIMEOUT_S = 600


def empty_cache_report(script: str, cache: Path, *args: str, unset: Iterable[str] = (), **environment: str) -> Any:
    """Run ``script`` (with ``args``) in a fresh Python whose ``NUMBA_CACHE_DIR`` is ``cache``,
    ``environment`` set and the variables in ``unset`` removed; the JSON of its last line."""
    env = {name: value for name, value in os.environ.items() if name not in set(unset)}
    env.update(environment, NUMBA_CACHE_DIR=str(cache))
    child = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True,
                           timeout=CHILD_TIMEOUT_S)
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout.splitlines()[-1])
