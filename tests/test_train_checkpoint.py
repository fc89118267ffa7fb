"""``minitorch train --checkpoint/--resume`` in one process (the 2-rank run is checked in
``distributed_worker.py``): a run cut after two epochs and resumed ends exactly where an
uninterrupted one does, because model, optimizer, schedule, history and the batch-order
generator all come back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch import train

QUICK = ["--dataset", "xor", "--epochs", "4", "--points", "40", "--hidden", "8", "--no-progress",
         "--optimizer", "sgd", "--momentum", "0.9", "--schedule", "step"]


class Interrupted(Exception):
    """Stands for a run killed between two epochs."""


def test_resume_equals_uninterrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def options(name: str) -> list[str]:
        return QUICK + ["--out", str(tmp_path / f"{name}.png"), "--checkpoint", str(tmp_path / f"{name}.pt")]

    whole = train.main(options("whole"))
    original, calls = train.train_epoch, []

    def stop_at_third(*args: object) -> tuple[float, float]:
        if len(calls) == 2:
            raise Interrupted
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(train, "train_epoch", stop_at_third)
    with pytest.raises(Interrupted):
        train.main(options("cut"))
    monkeypatch.setattr(train, "train_epoch", original)
    saved = minitorch.load(tmp_path / "cut.pt")
    assert saved["epoch"] == 2 and len(saved["history"]["train_loss"]) == 2
    resumed = train.main(options("cut") + ["--resume"])
    for got, expected in zip(resumed.model.parameters(), whole.model.parameters()):
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    assert resumed.history.train_loss == whole.history.train_loss
    assert resumed.history.lr == whole.history.lr  # the step schedule came back too


def test_resume_needs_a_checkpoint(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        train.main(["--resume"])
    assert "--resume needs --checkpoint" in capsys.readouterr().err


def test_not_a_checkpoint_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.pt"
    minitorch.save({"weights": minitorch.zeros(2)}, path)
    with pytest.raises(ValueError, match="is not a checkpoint of minitorch train"):
        train.main(QUICK + ["--out", str(tmp_path / "x.png"), "--checkpoint", str(path), "--resume"])
