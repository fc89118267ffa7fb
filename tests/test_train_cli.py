"""The training command (``minitorch train``, ``python -m minitorch.train``) and its loop."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import cli, nn
from minitorch.train import (
    Data, TrainResult, build_mlp, confusion_matrix, evaluate, load_data, main, train_epoch,
)
from minitorch.utils.data import DataLoader, TensorDataset

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUICK = ["--epochs", "3", "--points", "40", "--hidden", "8", "--no-progress"]


def _png(path: Path) -> bool:
    return path.is_file() and path.read_bytes()[: len(PNG_MAGIC)] == PNG_MAGIC


@pytest.mark.task("9.4")
def test_train_subcommand_runs_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "xor.png"
    result = cli.dispatch(["train", "--dataset", "xor", *QUICK, "--out", str(out)])
    assert isinstance(result, TrainResult)
    history = result.history
    assert len(history.train_loss) == len(history.test_accuracy) == len(history.epoch_seconds) == 3
    assert all(0.0 <= a <= 1.0 for a in history.train_accuracy + history.test_accuracy)
    # the default cosine schedule lowers the rate from epoch to epoch
    assert history.lr[0] > history.lr[1] > history.lr[2]
    assert _png(out)
    printed = capsys.readouterr().out
    assert "time per epoch" in printed and "final accuracy" in printed and str(out) in printed


@pytest.mark.task("9.4")
def test_same_seed_same_run(tmp_path: Path) -> None:
    runs = [main(["--dataset", "circle", *QUICK, "--batch-size", "8", "--out", str(tmp_path / f"{i}.png")])
            for i in range(2)]
    assert runs[0].history.train_loss == runs[1].history.train_loss
    assert runs[0].test_loss == runs[1].test_loss
    other = main(["--dataset", "circle", *QUICK, "--batch-size", "8", "--seed", "1", "--out", str(tmp_path / "o.png")])
    assert other.history.train_loss != runs[0].history.train_loss


@pytest.mark.task("9.4")
@pytest.mark.parametrize("optimizer", ["sgd", "adamw", "rmsprop", "adagrad"])
def test_every_optimizer_and_schedule_choice_runs(tmp_path: Path, optimizer: str) -> None:
    schedule = {"sgd": "step", "adamw": "none"}.get(optimizer, "cosine")
    result = main(["--dataset", "simple", *QUICK, "--optimizer", optimizer, "--schedule", schedule, "--lr", "0.05",
                   "--out", str(tmp_path / "p.png")])
    assert np.isfinite(result.train_loss) and _png(result.out)


def test_simple_backend_gives_the_same_run(tmp_path: Path) -> None:
    options = ["--dataset", "diag", "--epochs", "1", "--points", "16", "--hidden", "4", "--no-progress"]
    fast = main([*options, "--out", str(tmp_path / "a.png")])
    slow = main([*options, "--backend", "simple", "--out", str(tmp_path / "b.png")])
    np.testing.assert_allclose(slow.history.train_loss, fast.history.train_loss, rtol=1e-5)


@pytest.mark.slow
@pytest.mark.task("9.4")
def test_digits_learns_in_a_few_epochs(tmp_path: Path) -> None:
    out = tmp_path / "digits.png"
    result = main(["--dataset", "digits", "--epochs", "2", "--hidden", "32", "--lr", "0.02", "--no-progress",
                   "--out", str(out)])
    # float32 training: 95.3% (342 of 359) whether Numba compiles for the host or a generic
    # x86-64, so the threshold leaves 18 images of room for another CPU's rounding
    assert result.test_accuracy > 0.9
    assert _png(out)


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in ((["--epochs", "0"], "--epochs must be at least 1"),
                        (["--lr", "-1"], "--lr must be positive"),
                        (["--device", "tpu"], "--device must be 'cpu' or 'cuda'"),
                        (["--dataset", "mnist"], "invalid choice")):
        with pytest.raises(SystemExit):
            main(argv)
        assert words in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["train", "--optimizer", "lbfgs"])
    assert "invalid choice" in capsys.readouterr().err


def test_cli_help_lists_train(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.dispatch([]) is None
    assert cli.main([]) == 0
    assert "train" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", "--help"])
    assert exit_info.value.code == 0
    assert "--optimizer" in capsys.readouterr().out


def _torch_mlp(torch: Any, model: nn.Module) -> Any:
    layers = []
    for module in model:
        if isinstance(module, nn.Linear):
            linear = torch.nn.Linear(module.in_features, module.out_features)
            with torch.no_grad():
                linear.weight.copy_(torch.tensor(module.weight.detach().numpy()))
                linear.bias.copy_(torch.tensor(module.bias.detach().numpy()))
            layers.append(linear)
        else:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


@pytest.mark.task("9.4")
def test_train_epoch_matches_a_torch_loop(torch_ref: Any) -> None:
    data = load_data("xor", 24, seed=2)
    minitorch.manual_seed(0)
    model = build_mlp(2, 8, 2, 2)
    reference = _torch_mlp(torch_ref, model)
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.3, momentum=0.5)
    their_optimizer = torch_ref.optim.SGD(reference.parameters(), lr=0.3, momentum=0.5)
    loader = DataLoader(TensorDataset(data.X_train, data.y_train), batch_size=5)
    loss, accuracy = train_epoch(model, loader, optimizer, nn.CrossEntropyLoss())

    X = torch_ref.tensor(data.X_train.numpy())  # noqa: N806
    y = torch_ref.tensor(data.y_train.numpy())
    losses, correct = [], 0
    for start in range(0, len(y), 5):
        their_optimizer.zero_grad()
        logits = reference(X[start:start + 5])
        batch_loss = torch_ref.nn.functional.cross_entropy(logits, y[start:start + 5])
        batch_loss.backward()
        their_optimizer.step()
        losses.append(batch_loss.item() * len(y[start:start + 5]))
        correct += int((logits.argmax(dim=1) == y[start:start + 5]).sum())
    assert loss == pytest.approx(sum(losses) / len(y), rel=1e-5)
    assert accuracy == correct / len(y)
    for ours, theirs in zip(model.parameters(), reference.parameters()):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.task("9.4")
def test_evaluate_does_not_train_and_counts_correct_predictions() -> None:
    data: Data = load_data("split", 30, seed=1)
    minitorch.manual_seed(0)
    model = build_mlp(2, 4, 1, 2)
    before = copy.deepcopy(model.state_dict())
    loss, accuracy = evaluate(model, data.X_test, data.y_test, nn.CrossEntropyLoss())
    with minitorch.no_grad():
        logits = model(data.X_test).numpy()
    expected = np.mean(logits.argmax(axis=1) == data.y_test.numpy())
    assert accuracy == pytest.approx(expected)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    assert loss == pytest.approx(-np.mean(log_probs[np.arange(30), data.y_test.numpy()]), rel=1e-5)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key].numpy())
    assert all(p.grad is None for p in model.parameters())


def test_confusion_matrix_matches_scikit_learn() -> None:
    from sklearn.metrics import confusion_matrix as reference

    rng = np.random.default_rng(0)
    targets, predicted = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    np.testing.assert_array_equal(confusion_matrix(targets, predicted, 4), reference(targets, predicted, labels=range(4)))


def test_mlp_shape() -> None:
    model = build_mlp(64, 16, 2, 10)
    widths = [(m.in_features, m.out_features) for m in model if isinstance(m, nn.Linear)]
    assert widths == [(64, 16), (16, 16), (16, 10)]
    assert build_mlp(2, 5, 0, 2)[0].in_features == 2


def test_the_summary_names_the_device_and_the_cpu_kernels() -> None:
    """The cpu's ``--backend`` is named where it runs; a cuda run does not use it."""
    from argparse import Namespace

    from minitorch.train import _where

    assert _where(Namespace(device="cpu", backend="simple")) == "device cpu, backend 'simple'"
    assert _where(Namespace(device="cuda", backend="cpu")) == "device cuda"
