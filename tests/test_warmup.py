"""``minitorch warmup``: after it, a fresh process trains a small model without compiling anything.

The oracle is Numba's own compile events, counted in a child process: a kernel loaded from
the cache raises none. The command and the child share a private copy of the kernel cache
(seeded from this process's, so the command only compiles what is missing), which no other
test run writes into meanwhile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from minitorch import cli
from numba_cache_copy import kernel_cache_copy

REPO_ROOT = Path(__file__).resolve().parent.parent
#: the command compiles everything when the seed cache is empty: minutes on 2 cores
CHILD_TIMEOUT_S = 900
#: training steps as a user writes them, of an MLP and of a LeNet-like convnet: other widths and
#: kernel sizes than the warm-up's, the same kinds of kernels
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
y = torch.tensor(rng.integers(0, 3, 16))


def train(model, inputs, optimizer):
    for _ in range(2):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), y)
        loss.backward()
        optimizer.step()
    return loss.item()


mlp = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
loss = train(mlp, torch.tensor(rng.standard_normal((16, 20)).astype(np.float32)), torch.optim.Adam(mlp.parameters(), lr=0.01))
convnet = torch.nn.Sequential(
    torch.nn.Conv2d(1, 4, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(4, 6, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(6 * 4 * 4, 3),
)
images = torch.tensor(rng.standard_normal((16, 1, 12, 12)).astype(np.float32))
conv_loss = train(convnet, images, torch.optim.SGD(convnet.parameters(), lr=0.01))
print(json.dumps({"loss": loss, "conv_loss": conv_loss, "compiled": compiled}))
"""


def test_the_command_is_listed() -> None:
    parser = cli.build_parser(["warmup"])
    assert "warmup" in parser.format_help()
    assert parser.parse_args(["warmup", "--quiet"]).quiet


def test_after_warmup_a_fresh_process_compiles_nothing_for_small_models(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(kernel_cache_copy(tmp_path)),
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    command = subprocess.run([sys.executable, "-m", "minitorch", "warmup", "--quiet"], env=env, capture_output=True,
                             text=True, timeout=CHILD_TIMEOUT_S, cwd=tmp_path)
    assert command.returncode == 0, command.stderr[-3000:]
    assert "the common kernels are compiled and cached" in command.stdout
    child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                           timeout=CHILD_TIMEOUT_S, cwd=tmp_path)
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.strip().splitlines()[-1])
    assert report["loss"] > 0 and report["conv_loss"] > 0
    assert report["compiled"] == []


def test_a_number_of_jobs_below_one_is_refused(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "minitorch", "warmup", "--jobs", "0"], capture_output=True,
                            text=True, timeout=CHILD_TIMEOUT_S, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode != 0
    assert "--jobs must be at least 1, got 0" in result.stderr
