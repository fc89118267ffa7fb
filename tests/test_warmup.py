"""``minitorch warmup``: after it, a fresh process trains a small model without compiling anything.

The oracle is Numba's own compile events, counted in a child process that shares this
process's kernel cache: a kernel loaded from the cache raises none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from minitorch import cli, warmup

REPO_ROOT = Path(__file__).resolve().parent.parent
CHILD_TIMEOUT_S = 300
#: a training step as a user writes it: other widths than the warm-up's, the same kinds of kernels
CHILD = """\
import json
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, e):
        compiled.append(e.data["dispatcher"].py_func.__name__)
    def on_end(self, e):
        pass
event.register("numba:compile", Listener())
import numpy as np
import minitorch as torch
rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((16, 20)).astype(np.float32))
y = torch.tensor(rng.integers(0, 3, 16))
model = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
print(json.dumps({"loss": loss.item(), "compiled": compiled}))
"""


def test_the_command_is_listed() -> None:
    parser = cli.build_parser(["warmup"])
    assert "warmup" in parser.format_help()
    assert parser.parse_args(["warmup", "--quiet"]).quiet


def test_after_warmup_a_fresh_process_compiles_nothing_for_a_small_model() -> None:
    warmup.warm(progress=False)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                           timeout=CHILD_TIMEOUT_S, cwd=REPO_ROOT)
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.strip().splitlines()[-1])
    assert report["loss"] > 0
    assert report["compiled"] == []
