"""Start-up costs, each measured in fresh Python processes: import, first call, time to first result.

Every sample runs a small script in a new interpreter (``sys.executable``, this checkout's
minitorch first on the path) that imports the library, then computes a first result: one
training step of a small MLP (16-32-4, ReLU, cross-entropy, SGD), written as a PyTorch user
writes it (NumPy: the forward only). The script reports its import time and its first-call
time; the harness also times the whole process from start to the printed result. minitorch
runs with Numba's cache warm (the cache the harness itself uses, filled by an untimed run
first) and, for the JIT compile time, with an empty temporary ``NUMBA_CACHE_DIR``, so every
kernel it touches compiles; that run also lists the kernels whose compiling took longest
(Numba's compile events, each kernel's own time without the kernels it calls).
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
#: the first training step after the import (issue targets): with the cache warm, and empty
WARM_FIRST_CALL_TARGET = Target("seconds", 2.0)
COLD_FIRST_CALL_TARGET = Target("seconds", 10.0)
#: how many of the slowest compiles the cold run names
SLOWEST_COMPILES = 6
#: the workload after the import: ``{lib}`` is the module, NumPy makes the data
SCRIPT = """\
import json, time
{listener}
start = time.perf_counter()
import {module} as lib
imported = time.perf_counter()
import numpy as np
rng = np.random.default_rng(0)
x, labels = rng.standard_normal((32, 16)).astype(np.float32), rng.integers(0, 4, 32)
{body}
done = time.perf_counter()
print(json.dumps({{"import_s": imported - start, "first_s": done - imported, "result": value, "compiles": compiles}}), flush=True)
"""
#: records Numba's compiles: each dispatcher's own seconds (nested compiles taken out)
COMPILE_LISTENER = """\
from numba.core import event
compiles, _stack = {}, []
class _Listener(event.Listener):
    def on_start(self, e):
        _stack.append([time.perf_counter(), 0.0])
    def on_end(self, e):
        began, nested = _stack.pop()
        spent = time.perf_counter() - began
        if _stack:
            _stack[-1][1] += spent
        name = e.data["dispatcher"].py_func.__name__
        compiles[name] = compiles.get(name, 0.0) + spent - nested
event.register("numba:compile", _Listener())"""
NO_LISTENER = "compiles = {}"
AUTOGRAD_BODY = """\
model = lib.nn.Sequential(lib.nn.Linear(16, 32), lib.nn.ReLU(), lib.nn.Linear(32, 4))
optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(labels))
optimizer.zero_grad()
loss.backward()
optimizer.step()
value = float(loss.item())"""
NUMPY_BODY = """\
hidden = np.maximum(x @ rng.standard_normal((16, 32)).astype(np.float32), 0)
value = float((hidden @ rng.standard_normal((32, 4)).astype(np.float32)).sum())"""
MODULES = {MINITORCH: ("minitorch", AUTOGRAD_BODY), NUMPY: ("numpy", NUMPY_BODY), TORCH: ("torch", AUTOGRAD_BODY)}
COLD = "cold"
#: compiling every kernel takes a minute or so on 2 cores: one sample
COLD_REPEATS = 1
#: a fresh process that takes longer than this has hung
PROCESS_TIMEOUT_S = 600


def run_script(library: str, numba_cache: Optional[str] = None) -> dict[str, Any]:
    """Run the first-result script for ``library`` in a fresh interpreter; its figures and the wall time
    (and, with ``numba_cache``, the seconds each kernel took to compile)."""
    module, body = MODULES[library]
    listener = COMPILE_LISTENER if numba_cache is not None else NO_LISTENER
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if numba_cache is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", SCRIPT.format(module=module, body=body, listener=listener)], cwd=REPO_ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout else ""
    wall = time.perf_counter() - start
    _, errors = process.communicate(timeout=PROCESS_TIMEOUT_S)
    if process.returncode != 0 or not line:
        last = errors.strip().splitlines()[-1] if errors.strip() else f"exit status {process.returncode}"
        raise RuntimeError(f"{module} first-result script failed: {last}")
    figures = json.loads(line)
    return {"import_s": figures["import_s"], "first_s": figures["first_s"], "wall_s": wall,
            "compiles": figures["compiles"]}


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
        if cold and samples[MINITORCH]:
            case.notes[MINITORCH] = slowest_compiles(samples[MINITORCH][0]["compiles"])


def slowest_compiles(compiles: dict[str, float]) -> str:
    """The kernels whose compiling took longest, and the total: ``"23.1 s compiling; zip_add 3.2 s, ..."``."""
    slowest = sorted(compiles.items(), key=lambda item: -item[1])[:SLOWEST_COMPILES]
    named = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in slowest)
    return f"{sum(compiles.values()):.1f} s compiling {len(compiles)} functions; slowest: {named}"


def cases(ctx: Context) -> list[Case]:
    probe = Probe(ctx)

    def runner(figure: str, cold: bool = False) -> Any:
        return lambda case, settings: probe.fill(case, figure, cold, settings)

    group = "start-up (fresh processes)"
    return [
        Case("import (fresh process)", group, {}, runner=runner("import_s"),
             description="time of the import statement alone, in a new interpreter"),
        Case("first MLP training step after import, warm Numba cache", group, {}, runner=runner("first_s"),
             rows=[Row(MINITORCH, target=WARM_FIRST_CALL_TARGET)],
             description="the first step of a 16-32-4 MLP (forward, cross-entropy, backward, SGD) after the import"),
        Case("first MLP training step after import, empty Numba cache", group, {}, runner=runner("first_s", cold=True),
             rows=[Row(MINITORCH, target=COLD_FIRST_CALL_TARGET)],
             description="the same first step with an empty NUMBA_CACHE_DIR: every kernel it uses compiles"),
        Case("time-to-first-result, warm cache", group, {}, runner=runner("wall_s"),
             rows=[Row(MINITORCH, target=FIRST_RESULT_TARGET)],
             description="process start (interpreter included) to the printed first result"),
    ]
