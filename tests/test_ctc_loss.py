"""``F.ctc_loss`` / ``nn.CTCLoss`` against PyTorch (losses, and the gradients both of the logits and,
with PyTorch's convention, of the log-probabilities), against brute force over every alignment,
and against central differences."""

from __future__ import annotations

import itertools
import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.nn import functional as F

STEPS, BATCH, CLASSES = 12, 3, 5
PADDED = [[1, 2, 2, 3], [4, 1, 0, 0], [2, 2, 2, 0]]
CONCATENATED = [1, 2, 2, 3, 4, 1, 2, 2, 2]
TARGET_LENGTHS = [4, 2, 3]
INPUT_LENGTHS = [12, 9, 7]


def logits() -> np.ndarray:
    return np.random.default_rng(0).standard_normal((STEPS, BATCH, CLASSES))


def run(lib: ModuleType, reduction: str, targets: Any, module: bool = False) -> tuple[np.ndarray, ...]:
    x = lib.tensor(logits(), dtype=lib.float64, requires_grad=True)
    log_probs = x.log_softmax(2)
    log_probs.retain_grad()
    if module:
        loss = lib.nn.CTCLoss(reduction=reduction)(log_probs, lib.tensor(targets), lib.tensor(INPUT_LENGTHS),
                                                   lib.tensor(TARGET_LENGTHS))
    else:
        loss = lib.nn.functional.ctc_loss(log_probs, lib.tensor(targets), INPUT_LENGTHS, TARGET_LENGTHS,
                                          reduction=reduction)
    (loss.sum() if reduction == "none" else loss).backward()
    return np.asarray(loss.tolist()), np.asarray(x.grad.tolist()), np.asarray(log_probs.grad.tolist())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("form", ["padded", "concatenated", "module"])
def test_loss_and_gradients_as_torch(reduction: str, form: str, torch_ref: ModuleType) -> None:
    targets = CONCATENATED if form == "concatenated" else PADDED
    ours = run(minitorch, reduction, targets, module=form == "module")
    theirs = run(torch_ref, reduction, targets, module=form == "module")
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def brute_force_nll(log_probs: np.ndarray, target: list[int], blank: int = 0) -> float:
    """:math:`-\\log \\sum` over every path of ``T`` labels that collapses to ``target``."""
    total = 0.0
    steps, classes = log_probs.shape
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
        if collapsed == target:
            total += math.exp(sum(log_probs[t, c] for t, c in enumerate(path)))
    return -math.log(total)


@pytest.mark.parametrize("target", [[1], [1, 1], [2, 1], [1, 2, 1]])
def test_loss_is_the_sum_over_every_alignment(target: list[int]) -> None:
    rng = np.random.default_rng(1)
    raw = rng.standard_normal((5, 3))
    log_probs = raw - np.log(np.exp(raw).sum(axis=1, keepdims=True))
    ours = F.ctc_loss(minitorch.tensor(log_probs, dtype=minitorch.float64), minitorch.tensor(target), [5],
                      [len(target)], reduction="sum").item()
    assert ours == pytest.approx(brute_force_nll(log_probs, target), rel=1e-12)


def test_gradient_of_the_logits_by_central_differences() -> None:
    raw = np.random.default_rng(2).standard_normal((6, 1, 4))

    def loss_of(values: np.ndarray) -> float:
        lp = minitorch.tensor(values, dtype=minitorch.float64).log_softmax(2)
        return F.ctc_loss(lp, minitorch.tensor([[1, 3, 3]]), [6], [3]).item()

    x = minitorch.tensor(raw, dtype=minitorch.float64, requires_grad=True)
    F.ctc_loss(x.log_softmax(2), minitorch.tensor([[1, 3, 3]]), [6], [3]).backward()
    step = 1e-6
    numeric = np.zeros_like(raw)
    for index in np.ndindex(raw.shape):
        up, down = raw.copy(), raw.copy()
        up[index] += step
        down[index] -= step
        numeric[index] = (loss_of(up) - loss_of(down)) / (2 * step)
    np.testing.assert_allclose(x.grad.numpy(), numeric, atol=1e-7)


def test_impossible_alignments_and_zero_infinity_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        lp = lib.tensor(logits(), dtype=lib.float64).log_softmax(2)[:3]
        repeated = lib.tensor([[1, 1, 1]] * BATCH)  # needs 5 steps (blanks between repeats), has 3
        results.append([lib.nn.functional.ctc_loss(lp, repeated, [3] * BATCH, [3] * BATCH, reduction="none",
                                                   zero_infinity=zero).tolist() for zero in (False, True)])
    assert results[0] == results[1] == [[math.inf] * BATCH, [0.0] * BATCH]


def test_unbatched_input_as_torch(torch_ref: ModuleType) -> None:
    values = [lib.nn.functional.ctc_loss(lib.tensor(logits()[:, 0], dtype=lib.float64).log_softmax(1),
                                         lib.tensor([1, 2]), [STEPS], [2]).item() for lib in (minitorch, torch_ref)]
    assert values[0] == pytest.approx(values[1], rel=1e-12)


@pytest.mark.parametrize(("change", "words"), [
    ({"input_lengths": [13, 9, 7]}, "Expected input_lengths to have value at most 12, but got value 13"),
    ({"targets": [[1, 2], [4, 1], [2, 2]]}, "Expected tensor to have size at least 4 at dimension 1"),
    ({"targets": [[1, 2, 9, 3], [4, 1, 0, 0], [2, 2, 2, 0]]}, "targets must be labels in \\[0, 5\\)"),
    ({"input_lengths": [12, 9]}, "expected input_lengths and target_lengths of size 3"),
])
def test_bad_arguments_name_the_values(change: dict, words: str) -> None:
    arguments = {"targets": PADDED, "input_lengths": INPUT_LENGTHS, "target_lengths": TARGET_LENGTHS} | change
    lp = minitorch.tensor(logits(), dtype=minitorch.float64).log_softmax(2)
    with pytest.raises(RuntimeError, match=words):
        F.ctc_loss(lp, minitorch.tensor(arguments["targets"]), arguments["input_lengths"], arguments["target_lengths"])
