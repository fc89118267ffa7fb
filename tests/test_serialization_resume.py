"""Full checkpoints: training resumed from epoch k ends with exactly the uninterrupted weights.

The oracle is the uninterrupted run itself, computed by the same code in the same process:
resuming must reproduce it bit for bit, which needs the model's and the optimizer's state,
the scheduler's, and the random generator's (data order and dropout masks) to come back
exactly. The checkpoint goes through a real file and a fresh model, optimizer and scheduler
built after the generator was disturbed, as after a crash and a restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn, optim
from minitorch.utils.data import DataLoader, TensorDataset

pytestmark = pytest.mark.task("8.1")

EPOCHS = 4
RESUME_AT = 2
SAMPLES = 24
BATCH = 6
DROPOUT = 0.25
HIDDEN = 8
LOADER_SEED = 7


def _dataset() -> tuple[minitorch.Tensor, minitorch.Tensor]:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((SAMPLES, 2)).astype(np.float32)
    y = (np.sin(x[:, :1] * 2) + x[:, 1:] ** 2).astype(np.float32)
    return minitorch.from_numpy(x), minitorch.from_numpy(y)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(2, HIDDEN)
        self.out = nn.Linear(HIDDEN, 1)

    def forward(self, x: minitorch.Tensor) -> minitorch.Tensor:
        return self.out(F.dropout(self.hidden(x).tanh(), DROPOUT, self.training))


class Run:
    """A model, an Adam optimizer with a step schedule, and a shuffling DataLoader.

    The loader shuffles with the global generator, or with a ``minitorch.Generator`` of its
    own (``own_generator``), whose state the checkpoint must then hold too.
    """

    def __init__(self, own_generator: bool = False) -> None:
        self.model = Net()
        self.optimizer = optim.Adam(self.model.parameters(), lr=0.05)
        self.scheduler = optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.7)
        self.generator = minitorch.Generator().manual_seed(LOADER_SEED) if own_generator else None
        self.loader = DataLoader(TensorDataset(*_dataset()), batch_size=BATCH, shuffle=True, generator=self.generator)
        self.losses: list[float] = []

    def train_epoch(self) -> None:
        self.model.train()
        for xb, yb in self.loader:
            self.optimizer.zero_grad()
            loss = ((self.model(xb) - yb) ** 2).mean()
            loss.backward()
            self.optimizer.step()
            self.losses.append(loss.item())
        self.scheduler.step()

    def checkpoint(self, epoch: int) -> dict[str, Any]:
        return {
            "epoch": epoch,
            "model_state_dict": self.model.state_dict(),
            "optimizer_state_dict": self.optimizer.state_dict(),
            "scheduler_state_dict": self.scheduler.state_dict(),
            "loss": self.losses[-1],
            "rng_state": minitorch.random.get_rng_state(),
            "cuda_rng_state": minitorch.cuda.get_rng_state_all(),
            "loader_rng_state": None if self.generator is None else self.generator.get_state(),
        }

    def restore(self, checkpoint: dict[str, Any]) -> int:
        self.model.load_state_dict(checkpoint["model_state_dict"])
        self.optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
        self.scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
        minitorch.random.set_rng_state(checkpoint["rng_state"])
        minitorch.cuda.set_rng_state_all(checkpoint["cuda_rng_state"])
        if self.generator is not None:
            self.generator.set_state(checkpoint["loader_rng_state"])
        return checkpoint["epoch"]

    def weights(self) -> dict[str, bytes]:
        return {name: p.detach().numpy().tobytes() for name, p in self.model.state_dict().items()}


@pytest.mark.parametrize("own_generator", [False, True], ids=["global_generator", "loader_generator"])
def test_resumed_training_equals_the_uninterrupted_run(backend: str, own_generator: bool, tmp_path: Path) -> None:
    minitorch.manual_seed(0)
    full = Run(own_generator)
    for _ in range(EPOCHS):
        full.train_epoch()

    minitorch.manual_seed(0)
    first = Run(own_generator)
    for _ in range(RESUME_AT):
        first.train_epoch()
    path = tmp_path / "checkpoint.mt"
    minitorch.save(first.checkpoint(RESUME_AT), path)
    del first

    minitorch.manual_seed(12345)  # the restarted process starts from a different generator
    minitorch.rand(17)
    resumed = Run(own_generator)  # freshly (and differently) initialised
    if own_generator:
        resumed.generator.manual_seed(LOADER_SEED + 1)
    assert resumed.weights() != full.weights()
    start = resumed.restore(minitorch.load(path))
    assert start == RESUME_AT
    for _ in range(start, EPOCHS):
        resumed.train_epoch()

    assert resumed.weights() == full.weights()
    assert resumed.losses == full.losses[len(full.losses) - len(resumed.losses) :]
    assert resumed.scheduler.get_last_lr() == full.scheduler.get_last_lr()
    # and the losses did move: the run trained (so equal weights are not equal initial weights)
    per_epoch = SAMPLES // BATCH
    assert np.mean(full.losses[-per_epoch:]) < np.mean(full.losses[:per_epoch])


def test_resuming_without_the_rng_state_diverges(tmp_path: Path) -> None:
    """The generator's state matters: leaving it out changes data order and dropout masks."""
    minitorch.manual_seed(0)
    full = Run()
    for _ in range(EPOCHS):
        full.train_epoch()

    minitorch.manual_seed(0)
    first = Run()
    for _ in range(RESUME_AT):
        first.train_epoch()
    path = tmp_path / "checkpoint.mt"
    checkpoint = first.checkpoint(RESUME_AT)
    minitorch.save(checkpoint, path)
    minitorch.manual_seed(12345)
    resumed = Run()
    loaded = minitorch.load(path)
    resumed.model.load_state_dict(loaded["model_state_dict"])
    resumed.optimizer.load_state_dict(loaded["optimizer_state_dict"])
    resumed.scheduler.load_state_dict(loaded["scheduler_state_dict"])
    for _ in range(RESUME_AT, EPOCHS):
        resumed.train_epoch()
    assert resumed.weights() != full.weights()


def test_the_checkpoint_holds_what_was_saved(tmp_path: Path) -> None:
    minitorch.manual_seed(0)
    run = Run()
    run.train_epoch()
    path = tmp_path / "checkpoint.mt"
    saved = run.checkpoint(1)
    minitorch.save(saved, path)
    loaded = minitorch.load(path)
    assert list(loaded) == list(saved)
    assert list(loaded["model_state_dict"]) == ["hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    for name, value in saved["model_state_dict"].items():
        assert loaded["model_state_dict"][name].numpy().tobytes() == value.numpy().tobytes()
    opt = loaded["optimizer_state_dict"]
    assert list(opt["state"]) == [0, 1, 2, 3]
    assert sorted(opt["state"][0]) == sorted(saved["optimizer_state_dict"]["state"][0])
    assert opt["param_groups"][0]["lr"] == saved["optimizer_state_dict"]["param_groups"][0]["lr"]
    assert loaded["loss"] == run.losses[-1]
