"""The cpu backend's fused cross-entropy (``backends/cpu_losses.py``, reached through ``loss_dispatch``).

Oracles: the primitives' path of :class:`minitorch.ops.losses.CrossEntropy` (the same arithmetic),
a float64 NumPy cross-entropy written from the formulas, and PyTorch's ``cross_entropy``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import loss_dispatch
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.nn import functional as F
from minitorch.ops import losses as losses_module
from torch_oracle import import_torch

DTYPES = [minitorch.float32, minitorch.float64]
REDUCTIONS = ["mean", "sum", "none"]
#: (rows, classes): serial kernels, and enough elements for the threaded ones
SHAPES = [(9, 5), (PARALLEL_MIN_WORK // 100 + 7, 100)]
#: the default ignore_index, and one that is a class
IGNORED = [-100, 2]


def problem(shape: tuple[int, int], dtype: minitorch.dtype, ignore_index: int,
            seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Logits of ``dtype`` and class targets, about a tenth of them ``ignore_index``."""
    rng = np.random.default_rng(seed)
    x = (3 * rng.standard_normal(shape)).astype(dtype.numpy)
    target = rng.integers(0, shape[1], shape[0])
    target[rng.random(shape[0]) < 0.1] = ignore_index
    return x, target


def run(x: np.ndarray, target: np.ndarray, reduction: str, ignore_index: int, grad: np.ndarray | None,
        fused: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray, list[bool]]:
    """The loss and the logits' gradient (``grad`` reaching the loss); which path the forward took."""
    taken = []
    fits = losses_module.fused_cross_entropy_fits

    def spy(*args: Any) -> bool:
        answer = fused and fits(*args)
        taken.append(answer)
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(losses_module, "fused_cross_entropy_fits", spy)
        logits = minitorch.tensor(x, requires_grad=True)
        loss = F.cross_entropy(logits, minitorch.tensor(target), reduction=reduction, ignore_index=ignore_index)
        loss.backward(None if grad is None else minitorch.tensor(grad))
    return loss.detach().numpy(), logits.grad.numpy(), taken


def numpy_cross_entropy(x: np.ndarray, target: np.ndarray, reduction: str, ignore_index: int,
                        grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Loss and gradient in float64 from the formulas: log p = x - log sum exp x, and
    (softmax - one hot) times each row's share of the gradient."""
    x = x.astype(np.float64)
    shifted = x - x.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    counted = target != ignore_index
    rows = np.arange(len(target))
    safe = np.where(counted, target, 0)
    losses = np.where(counted, -log_p[rows, safe], 0.0)
    one_hot = np.zeros_like(x)
    one_hot[rows[counted], target[counted]] = 1.0
    if reduction == "none":
        loss, share = losses, grad.astype(np.float64)
    elif reduction == "sum":
        loss, share = losses.sum(), np.full(len(target), float(grad))
    else:
        loss, share = losses.sum() / counted.sum(), np.full(len(target), float(grad) / max(counted.sum(), 1))
    return np.asarray(loss), (np.exp(log_p) - one_hot) * (share * counted)[:, None]


def gradient_for(reduction: str, rows: int, dtype: minitorch.dtype, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(rows if reduction == "none" else ()).astype(dtype.numpy)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("ignore_index", IGNORED)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fused_path_agrees_with_the_primitives(dtype: minitorch.dtype, reduction: str, ignore_index: int,
                                               shape: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    x, target = problem(shape, dtype, ignore_index)
    grad = gradient_for(reduction, shape[0], dtype)
    fused_loss, fused_grad, taken = run(x, target, reduction, ignore_index, grad, True, monkeypatch)
    plain_loss, plain_grad, plain_taken = run(x, target, reduction, ignore_index, grad, False, monkeypatch)
    assert taken == [True] and plain_taken == [False]
    # the gradient is the same arithmetic, so the same bits; a sum may be added up in another order
    np.testing.assert_array_equal(fused_grad, plain_grad)
    if reduction == "none":
        np.testing.assert_array_equal(fused_loss, plain_loss)
    else:
        np.testing.assert_allclose(fused_loss, plain_loss, rtol=2 * np.finfo(dtype.numpy).eps)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fused_path_matches_the_formulas(dtype: minitorch.dtype, reduction: str, shape: tuple[int, int],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    x, target = problem(shape, dtype, -100, seed=1)
    grad = gradient_for(reduction, shape[0], dtype)
    loss, logits_grad, taken = run(x, target, reduction, -100, grad, True, monkeypatch)
    expected_loss, expected_grad = numpy_cross_entropy(x, target, reduction, -100, grad)
    assert taken == [True]
    tolerance = 1e-5 if dtype is minitorch.float32 else 1e-12
    np.testing.assert_allclose(loss, expected_loss, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(logits_grad, expected_grad, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("ignore_index", IGNORED)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_fused_path_matches_pytorch(reduction: str, ignore_index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    torch = import_torch()
    x, target = problem((33, 7), minitorch.float32, ignore_index, seed=2)
    grad = gradient_for(reduction, 33, minitorch.float32)
    loss, logits_grad, _ = run(x, target, reduction, ignore_index, grad, True, monkeypatch)
    logits = torch.tensor(x, requires_grad=True)
    expected = torch.nn.functional.cross_entropy(logits, torch.tensor(target), reduction=reduction,
                                                 ignore_index=ignore_index)
    expected.backward(torch.tensor(grad))
    np.testing.assert_allclose(loss, expected.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(logits_grad, logits.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_every_target_ignored_gives_nan_mean_and_no_gradient(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.ones((4, 3), np.float32)
    target = np.full(4, -100)
    for reduction, expected in (("mean", np.nan), ("sum", 0.0)):
        loss, logits_grad, taken = run(x, target, reduction, -100, None, True, monkeypatch)
        assert taken == [True]
        np.testing.assert_array_equal(loss, np.float32(expected))
        np.testing.assert_array_equal(logits_grad, np.zeros((4, 3), np.float32))


def test_strided_logits_and_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    x, target = problem((12, 6), minitorch.float32, -100, seed=4)
    logits = minitorch.tensor(np.ascontiguousarray(x.T), requires_grad=True)
    targets = minitorch.tensor(np.repeat(target, 2))[::2]  # every other one: stride 2
    loss = F.cross_entropy(logits.t(), targets)
    loss.backward()
    expected_loss, expected_grad = numpy_cross_entropy(x, target, "mean", -100, np.float32(1))
    np.testing.assert_allclose(loss.item(), expected_loss, rtol=1e-6)
    np.testing.assert_allclose(logits.grad.numpy().T, expected_grad, rtol=1e-5, atol=1e-7)


def test_slices_of_longer_tensors_count_only_their_own_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A contiguous slice's buffer runs on past its end: the first rows of 120 logits and targets
    (the mean divides by the 16 targets of the slice, not by the 120 of the storage)."""
    x, target = problem((120, 4), minitorch.float64, -100, seed=8)
    logits = minitorch.tensor(x, requires_grad=True)
    loss = F.cross_entropy(logits[:16], minitorch.tensor(target)[:16])
    loss.backward()
    expected_loss, expected_grad = numpy_cross_entropy(x[:16], target[:16], "mean", -100, np.float64(1))
    np.testing.assert_allclose(loss.item(), expected_loss, rtol=1e-12)
    np.testing.assert_allclose(logits.grad.numpy()[:16], expected_grad, rtol=1e-10, atol=1e-15)
    assert not logits.grad.numpy()[16:].any()
    tail = F.cross_entropy(logits[100:], minitorch.tensor(target)[100:])  # a slice with an offset
    np.testing.assert_allclose(tail.item(), numpy_cross_entropy(x[100:], target[100:], "mean", -100,
                                                                np.float64(1))[0], rtol=1e-12)


def test_double_backward_takes_the_differentiable_formula() -> None:
    torch = import_torch()
    x, target = problem((6, 4), minitorch.float64, -100, seed=5)
    logits = minitorch.tensor(x, requires_grad=True)
    (grad,) = minitorch.autograd.grad(F.cross_entropy(logits, minitorch.tensor(target)), logits, create_graph=True)
    (grad * grad).sum().backward()
    t_logits = torch.tensor(x, requires_grad=True)
    (t_grad,) = torch.autograd.grad(torch.nn.functional.cross_entropy(t_logits, torch.tensor(target)), t_logits,
                                    create_graph=True)
    (t_grad * t_grad).sum().backward()
    np.testing.assert_allclose(grad.detach().numpy(), t_grad.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(logits.grad.numpy(), t_logits.grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("bad", [5, -1, -101])
def test_a_target_outside_the_classes_is_refused(bad: int) -> None:
    target = minitorch.tensor([0, bad, 1])
    with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
        F.cross_entropy(minitorch.zeros(3, 5, requires_grad=True), target)


def test_an_ignore_index_outside_the_classes_is_not_checked() -> None:
    loss = F.cross_entropy(minitorch.zeros(2, 5), minitorch.tensor([7, 1]), ignore_index=7)
    np.testing.assert_allclose(loss.item(), np.log(5), rtol=1e-6)


def test_a_target_changed_in_place_is_caught_in_backward() -> None:
    logits = minitorch.zeros(3, 5, requires_grad=True)
    target = minitorch.tensor([0, 1, 2])
    loss = F.cross_entropy(logits, target)
    target[1] = 4
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_targets_changed_behind_the_version_counter_are_checked_again_in_backward() -> None:
    """A target rewritten through NumPy (no new version) after the forward: backward must raise,
    not write outside the gradient. Run in a child process, so that a write out of bounds
    cannot take the test run with it."""
    script = textwrap.dedent("""
        import numpy as np
        import minitorch
        from minitorch.nn import functional as F
        values = np.array([0, 1, 2])
        logits = minitorch.zeros(3, 5, requires_grad=True)
        loss = F.cross_entropy(logits, minitorch.from_numpy(values))
        values[1] = 10**9
        try:
            loss.backward()
        except IndexError as error:
            print("refused:", error)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "refused: Target 1000000000 is out of bounds." in result.stdout


def test_simple_backend_takes_the_primitives_and_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    x, target = problem((9, 5), minitorch.float32, -100, seed=6)
    cpu_loss, cpu_grad, cpu_taken = run(x, target, "mean", -100, None, True, monkeypatch)
    with minitorch.backends.use("simple"):
        simple_loss, simple_grad, simple_taken = run(x, target, "mean", -100, None, True, monkeypatch)
    assert cpu_taken == [True] and simple_taken == [False]
    np.testing.assert_allclose(simple_loss, cpu_loss, rtol=1e-6)
    np.testing.assert_allclose(simple_grad, cpu_grad, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("make_bad, named", [
    (lambda: (minitorch.zeros(3, 4, dtype=minitorch.int64), minitorch.tensor([0, 1, 2])), "int64"),
    (lambda: (minitorch.zeros(3, 4), minitorch.tensor([0, 1])), "[2]"),
    (lambda: (minitorch.zeros(3, 0), minitorch.tensor([0, 1, 2])), "[3, 0]"),
    (lambda: (minitorch.zeros(3, 4), minitorch.tensor([0.0, 1.0, 2.0])), "float32"),
    (lambda: (minitorch.zeros(2, 3, 4), minitorch.tensor([0, 1])), "[2, 3, 4]"),
])
def test_cross_entropy_op_refuses_what_its_kernel_cannot_take(make_bad: Any, named: str) -> None:
    x, target = make_bad()
    with pytest.raises(ValueError, match=f"cross_entropy kernel.*{named.replace('[', '.').replace(']', '.')}"):
        loss_dispatch.cross_entropy_op(x, target, -100)


def test_backward_op_refuses_a_bad_gradient_or_divisor() -> None:
    _, log_p, _, _ = loss_dispatch.cross_entropy_op(minitorch.zeros(3, 4), minitorch.tensor([0, 1, 2]), -100)
    target = minitorch.tensor([0, 1, 2])
    with pytest.raises(ValueError, match=r"gradient must be a float scalar or \(3,\).*\[2\]"):
        loss_dispatch.cross_entropy_backward_op(log_p, target, -100, minitorch.ones(2), 1)
    with pytest.raises(ValueError, match="divisor must be at least 1, got 0"):
        loss_dispatch.cross_entropy_backward_op(log_p, target, -100, minitorch.tensor(1.0), 0)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        loss_dispatch.cross_entropy_backward_op(log_p, minitorch.tensor([0, 4, 1]), -100, minitorch.tensor(1.0), 1)


def test_kernels_are_refused_on_a_backend_without_them() -> None:
    with minitorch.backends.use("simple"):
        with pytest.raises(ValueError, match="simple backend"):
            loss_dispatch.cross_entropy_op(minitorch.zeros(3, 4), minitorch.tensor([0, 1, 2]), -100)
