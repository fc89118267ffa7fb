"""The training demo: it learns, it is deterministic, and it writes a valid PNG."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch.demo import DemoResult, bce_with_logits, main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: ``simple`` is a single vertical boundary: a few dozen full-batch epochs are enough
EASY_EPOCHS = 50
EASY_ACCURACY = 0.9
SHORT_EPOCHS = 5
#: logits where the textbook formula is still accurate in float64 (0 is where a naive
#: ``relu(z) + log(1 + exp(-|z|))`` gets the gradient wrong)
LOGITS = [-8.0, -3.0, -0.5, 0.0, 0.5, 3.0, 8.0]
FLOAT32_RTOL = 1e-5
#: float32 logits whose sigmoid rounds to exactly 0 or 1
HUGE_LOGIT = 200.0


def _run(out: Path, *extra: str) -> DemoResult:
    return main(["--dataset", "simple", "--out", str(out), "--no-progress", *extra])


@pytest.mark.slow
def test_learns_simple_and_writes_png(tmp_path: Path) -> None:
    out = tmp_path / "plots" / "demo.png"
    result = _run(out, "--epochs", str(EASY_EPOCHS))
    assert result.accuracy >= EASY_ACCURACY
    assert result.history.losses[-1] < result.history.losses[0]
    assert len(result.history.epoch_seconds) == EASY_EPOCHS
    assert out.is_file() and out.read_bytes()[: len(PNG_MAGIC)] == PNG_MAGIC


def test_same_seed_same_run(tmp_path: Path) -> None:
    first = _run(tmp_path / "a.png", "--epochs", str(SHORT_EPOCHS), "--batch-size", "10")
    again = _run(tmp_path / "b.png", "--epochs", str(SHORT_EPOCHS), "--batch-size", "10")
    assert first.history.losses == again.history.losses
    assert first.loss == again.loss


def test_bce_with_logits_matches_the_textbook_formula() -> None:
    logits = np.array(LOGITS, dtype=np.float64)
    for label in (0.0, 1.0):
        target = np.full_like(logits, label)
        p = 1.0 / (1.0 + np.exp(-logits))
        expected = np.mean(-(target * np.log(p) + (1 - target) * np.log1p(-p)))
        got = bce_with_logits(minitorch.tensor(logits, dtype=minitorch.float32), minitorch.tensor(target)).item()
        assert got == pytest.approx(expected, rel=FLOAT32_RTOL)


def test_bce_with_logits_is_finite_for_huge_logits() -> None:
    logits = minitorch.tensor([-HUGE_LOGIT, HUGE_LOGIT], requires_grad=True)
    loss = bce_with_logits(logits, minitorch.tensor([1.0, 0.0]))
    loss.backward()
    assert loss.item() == pytest.approx(HUGE_LOGIT)
    np.testing.assert_allclose(logits.grad.numpy(), [-0.5, 0.5])


def test_bce_with_logits_gradient_is_sigmoid_minus_target() -> None:
    logits = minitorch.tensor(LOGITS, requires_grad=True)
    target = minitorch.ones(len(LOGITS))
    bce_with_logits(logits, target).backward()
    expected = (1.0 / (1.0 + np.exp(-np.array(LOGITS))) - 1.0) / len(LOGITS)
    np.testing.assert_allclose(logits.grad.numpy(), expected, rtol=FLOAT32_RTOL)
