"""Start-up costs, each measured in fresh Python processes: import, first call, time to first result.

Every sample runs a small script in a new interpreter (``sys.executable``, this checkout's
minitorch first on the path) that imports the library, then computes a first result: a
small ``relu(x @ w + b).sum()`` and its ``backward()`` (NumPy: the forward only). The script
reports its import time and its first-call time; the harness also times the whole process
from start to the printed result. minitorch runs with Numba's cache warm (the cache the
harness itself uses, filled by an untimed run first) and, for the JIT compile time, with an
empty temporary ``NUMBA_CACHE_DIR``, so every kernel it touches compiles.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from harness import LIBRARIES, MINITORCH, NUMPY, TORCH, Case, Context, Row, Settings, Target

REPO_ROOT = Path(__file__).resolve().parent.parent
FIRST_RESULT_TARGET = Target("seconds", 3.0)
#: the workload after the import: ``{lib}`` is the module, NumPy makes the data
SCRIPT = """\
import json, time
start = time.perf_counter()
import {module} as lib
imported = time.perf_counter()
import numpy as np
rng = np.random.default_rng(0)
x, w, b = (rng.standard_normal(shape).astype(np.float32) for shape in ((32, 16), (16, 8), (8,)))
{body}
done = time.perf_counter()
print(json.dumps({{"import_s": imported - start, "first_s": done - imported, "result": value}}), flush=True)
"""
AUTOGRAD_BODY = """\
x, w, b = lib.tensor(x), lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
loss = (x @ w + b).relu().sum()
loss.backward()
value = float(loss.item()) + float(w.grad.sum().item())"""
NUMPY_BODY = "value = float(np.maximum(x @ w + b, 0).sum())"
MODULES = {MINITORCH: ("minitorch", AUTOGRAD_BODY), NUMPY: ("numpy", NUMPY_BODY), TORCH: ("torch", AUTOGRAD_BODY)}
COLD = "cold"
#: compiling every kernel takes a minute or so on 2 cores: one sample
COLD_REPEATS = 1
#: a fresh process that takes longer than this has hung
PROCESS_TIMEOUT_S = 600


def run_script(library: str, numba_cache: Optional[str] = None) -> dict[str, float]:
    """Run the first-result script for ``library`` in a fresh interpreter; its figures and the wall time."""
    module, body = MODULES[library]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if numba_cache is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", SCRIPT.format(module=module, body=body)], cwd=REPO_ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout else ""
    wall = time.perf_counter() - start
    _, errors = process.communicate(timeout=PROCESS_TIMEOUT_S)
    if process.returncode != 0 or not line:
        last = errors.strip().splitlines()[-1] if errors.strip() else f"exit status {process.returncode}"
        raise RuntimeError(f"{module} first-result script failed: {last}")
    figures = json.loads(line)
    return {"import_s": figures["import_s"], "first_s": figures["first_s"], "wall_s": wall}


class Probe:
    """Runs the fresh-process rounds once (lazily) and keeps the samples for the cases that show them."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.warm: Optional[dict[str, list[dict[str, float]]]] = None
        self.cold: Optional[list[dict[str, float]]] = None
        self.errors: dict[str, str] = {}

    def libraries(self) -> list[str]:
        return [lib for lib in LIBRARIES if lib != TORCH or self.ctx.torch is not None]

    def run_warm(self, settings: Settings) -> dict[str, list[dict[str, float]]]:
        if self.warm is None:
            self.warm = {lib: [] for lib in self.libraries()}
            present = list(self.warm)
            for lib in present:  # untimed: fills Numba's cache, loads the libraries into the page cache
                self._sample(lib, None)
            for repeat in range(settings.process_repeats):
                shift = repeat % len(present)
                for lib in present[shift:] + present[:shift]:
                    sample = self._sample(lib, None)
                    if sample is not None:
                        self.warm[lib].append(sample)
        return self.warm

    def run_cold(self, settings: Settings) -> list[dict[str, float]]:
        if self.cold is None:
            self.cold = []
            for _ in range(COLD_REPEATS):
                cache = tempfile.mkdtemp(prefix="minitorch-bench-numba-")
                try:
                    sample = self._sample(MINITORCH, cache)
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
                if sample is not None:
                    self.cold.append(sample)
        return self.cold

    def _sample(self, library: str, cache: Optional[str]) -> Optional[dict[str, float]]:
        try:
            return run_script(library, cache)
        except Exception as error:  # noqa: BLE001 - the key reads n/a, with the reason
            self.errors[library if cache is None else COLD] = str(error)[:200]
            return None

    def fill(self, case: Case, figure: str, cold: bool, settings: Settings) -> None:
        if cold:
            samples = {MINITORCH: self.run_cold(settings)}
            errors = {MINITORCH: self.errors.get(COLD)}
        else:
            samples = self.run_warm(settings)
            errors = {lib: self.errors.get(lib) for lib in LIBRARIES}
        for lib, runs in samples.items():
            if runs:
                case.times[lib] = [run[figure] for run in runs]
            elif errors.get(lib):
                case.notes[lib] = str(errors[lib])


def cases(ctx: Context) -> list[Case]:
    probe = Probe(ctx)

    def runner(figure: str, cold: bool = False) -> Any:
        return lambda case, settings: probe.fill(case, figure, cold, settings)

    group = "start-up (fresh processes)"
    return [
        Case("import (fresh process)", group, {}, runner=runner("import_s"),
             description="time of the import statement alone, in a new interpreter"),
        Case("first call after import, warm Numba cache", group, {}, runner=runner("first_s"),
             description="the first relu(x @ w + b).sum() and backward() after the import"),
        Case("first call after import, empty Numba cache", group, {}, runner=runner("first_s", cold=True),
             description="the same first call with an empty NUMBA_CACHE_DIR: every kernel it uses compiles"),
        Case("time-to-first-result, warm cache", group, {}, runner=runner("wall_s"),
             rows=[Row(MINITORCH, target=FIRST_RESULT_TARGET)],
             description="process start (interpreter included) to the printed first result"),
    ]
