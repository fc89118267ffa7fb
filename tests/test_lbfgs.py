"""LBFGS against PyTorch in float64: the trajectory of every step on the Rosenbrock function and on
a small least-squares regression, with a fixed step and with the strong-Wolfe line search; the
counters it keeps; a state_dict round trip mid-run; the line search's cubic step by hand; errors.

Both frameworks compute the same IEEE operations except that PyTorch fuses ``a + alpha * b``
(one rounding, FMA) where minitorch rounds twice; L-BFGS on Rosenbrock amplifies such last-bit
differences, so the runs here are a few steps long and agree to 1e-10.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from layer_helpers import assert_same_error

import minitorch
from minitorch.optim.line_search import cubic_minimum

TRAJECTORY = {"rtol": 1e-10, "atol": 1e-10}
START = np.array([-1.5, 2.0])
SETTINGS = [
    {"max_iter": 5},
    {"max_iter": 5, "line_search_fn": "strong_wolfe"},
    {"line_search_fn": "strong_wolfe"},
    {"lr": 0.5, "history_size": 3, "max_iter": 4},
    {"lr": 0.5, "history_size": 3, "max_iter": 4, "line_search_fn": "strong_wolfe"},
    {"max_iter": 3, "max_eval": 4, "line_search_fn": "strong_wolfe", "tolerance_change": 1e-3},
]


def rosenbrock(x: Any) -> Any:
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def regression_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    features = rng.standard_normal((20, 3))
    return features, features @ np.array([1.5, -2.0, 0.5]) + 0.3 + 0.1 * rng.standard_normal(20)


def run(lib: Any, problem: str, settings: dict, steps: int) -> tuple[list[np.ndarray], list[float], Any]:
    """The parameters after each ``step`` and the losses it returned, and the optimizer."""
    if problem == "rosenbrock":
        params = [lib.tensor(START, dtype=lib.float64, requires_grad=True)]

        def loss_fn() -> Any:
            return rosenbrock(params[0])
    else:
        features, targets = regression_data()
        x, y = lib.tensor(features, dtype=lib.float64), lib.tensor(targets, dtype=lib.float64)
        weight = lib.zeros(3, 1, dtype=lib.float64, requires_grad=True)
        bias = lib.zeros(1, dtype=lib.float64, requires_grad=True)
        params = [weight, bias]

        def loss_fn() -> Any:
            return lib.nn.functional.mse_loss((x @ weight).view(-1) + bias, y)
    optimizer = lib.optim.LBFGS(params, **settings)

    def closure() -> Any:
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    trajectory, losses = [], []
    for _ in range(steps):
        losses.append(float(optimizer.step(closure)))
        trajectory.append(np.concatenate([p.detach().numpy().reshape(-1) for p in params]))
    return trajectory, losses, optimizer


@pytest.mark.parametrize("problem,steps", [("rosenbrock", 6), ("regression", 3)])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
def test_trajectory_matches_torch(torch_ref, problem: str, steps: int, settings: dict) -> None:
    ours, our_losses, our_opt = run(minitorch, problem, settings, steps)
    theirs, their_losses, their_opt = run(torch_ref, problem, settings, steps)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), **TRAJECTORY)
    np.testing.assert_allclose(our_losses, their_losses, **TRAJECTORY)
    our_state = our_opt.state[our_opt.param_groups[0]["params"][0]]
    their_state = their_opt.state[their_opt.param_groups[0]["params"][0]]
    assert (our_state["func_evals"], our_state["n_iter"]) == (their_state["func_evals"], their_state["n_iter"])
    assert len(our_state["old_dirs"]) == len(their_state["old_dirs"])


def test_rosenbrock_converges_with_line_search() -> None:
    trajectory, _, _ = run(minitorch, "rosenbrock", {"line_search_fn": "strong_wolfe"}, 5)
    np.testing.assert_allclose(trajectory[-1], [1.0, 1.0], atol=1e-5)


def test_state_dict_round_trip(torch_ref) -> None:
    """Two steps, save, load into a fresh optimizer over a copy of the parameters: the next
    steps equal those of the optimizer that went on, and torch's."""
    settings = {"line_search_fn": "strong_wolfe", "max_iter": 3, "history_size": 4}
    x = minitorch.tensor(START, dtype=minitorch.float64, requires_grad=True)
    optimizer = minitorch.optim.LBFGS([x], **settings)

    def closure_for(opt: Any, p: Any) -> Any:
        def closure() -> Any:
            opt.zero_grad()
            loss = rosenbrock(p)
            loss.backward()
            return loss
        return closure

    for _ in range(2):
        optimizer.step(closure_for(optimizer, x))
    saved = copy.deepcopy(optimizer.state_dict())
    assert saved["param_groups"][0]["history_size"] == 4 and len(saved["state"][0]["old_dirs"]) > 1
    x2 = minitorch.tensor(x.detach().numpy(), dtype=minitorch.float64, requires_grad=True)
    restored = minitorch.optim.LBFGS([x2], lr=0.1)
    restored.load_state_dict(saved)
    assert restored.param_groups[0]["lr"] == 1 and restored.param_groups[0]["line_search_fn"] == "strong_wolfe"
    for _ in range(2):
        optimizer.step(closure_for(optimizer, x))
        restored.step(closure_for(restored, x2))
    np.testing.assert_array_equal(x2.detach().numpy(), x.detach().numpy())
    theirs, _, _ = run(torch_ref, "rosenbrock", settings, 4)
    np.testing.assert_allclose(x.detach().numpy(), theirs[-1], **TRAJECTORY)


def test_stops_at_once_when_gradient_is_small() -> None:
    x = minitorch.tensor([1.0, 1.0], dtype=minitorch.float64, requires_grad=True)  # the minimum
    optimizer = minitorch.optim.LBFGS([x])

    def closure() -> Any:
        optimizer.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss
    assert float(optimizer.step(closure)) == 0.0
    assert optimizer.state[x] == {"func_evals": 1, "n_iter": 0}
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 1.0])


def test_cubic_minimum_by_hand() -> None:
    # f(x) = (x - 1)^3 - 3 (x - 1) has f'(x) = 3 (x - 1)^2 - 3: a local minimum at x = 2
    def f(x: float) -> float:
        return (x - 1) ** 3 - 3 * (x - 1)

    def g(x: float) -> float:
        return 3 * (x - 1) ** 2 - 3
    assert cubic_minimum(1.5, f(1.5), g(1.5), 3.0, f(3.0), g(3.0)) == pytest.approx(2.0, abs=1e-12)
    assert cubic_minimum(3.0, f(3.0), g(3.0), 1.5, f(1.5), g(1.5)) == pytest.approx(2.0, abs=1e-12)
    assert cubic_minimum(1.5, f(1.5), g(1.5), 3.0, f(3.0), g(3.0), bounds=(2.5, 2.8)) == 2.5
    # a cubic rising with slope 1 at both ends and by 0.9 in between has no minimum: the middle of the bounds
    assert cubic_minimum(0.0, 0.0, 1.0, 1.0, 0.9, 1.0, bounds=(0.0, 4.0)) == 2.0


def test_errors_as_torch(torch_ref) -> None:
    ours = minitorch.tensor([1.0], requires_grad=True)
    theirs = torch_ref.tensor([1.0], requires_grad=True)
    assert_same_error(lambda: minitorch.optim.LBFGS([ours], lr=-1.0), lambda: torch_ref.optim.LBFGS([theirs], lr=-1.0))
    other, other_t = minitorch.tensor([2.0], requires_grad=True), torch_ref.tensor([2.0], requires_grad=True)
    assert_same_error(lambda: minitorch.optim.LBFGS([{"params": [ours]}, {"params": [other]}]),
                      lambda: torch_ref.optim.LBFGS([{"params": [theirs]}, {"params": [other_t]}]))

    def step(lib: Any, p: Any) -> None:
        optimizer = lib.optim.LBFGS([p], line_search_fn="backtracking")

        def closure() -> Any:
            optimizer.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        optimizer.step(closure)
    assert_same_error(lambda: step(minitorch, ours), lambda: step(torch_ref, theirs))
    assert minitorch.optim.LBFGS([ours], max_iter=8).defaults["max_eval"] == 10
    assert_same_error(lambda: minitorch.optim.LBFGS([ours], lr=minitorch.tensor([1.0, 2.0])),
                      lambda: torch_ref.optim.LBFGS([theirs], lr=torch_ref.tensor([1.0, 2.0])))


def test_tensor_lr_matches_torch(torch_ref) -> None:
    ours, _, _ = run(minitorch, "regression", {"lr": minitorch.tensor(0.5, dtype=minitorch.float64)}, 2)
    theirs, _, _ = run(torch_ref, "regression", {"lr": torch_ref.tensor(0.5, dtype=torch_ref.float64)}, 2)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), **TRAJECTORY)


def _float32_rosenbrock_state(lib: Any, steps: int) -> tuple[np.ndarray, dict[str, Any]]:
    x = lib.tensor(START, dtype=lib.float32, requires_grad=True)
    optimizer = lib.optim.LBFGS([x], max_iter=4, history_size=3)

    def closure() -> Any:
        optimizer.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss

    for _ in range(steps):
        optimizer.step(closure)
    return x.detach().numpy().copy(), optimizer.state[x]


def test_a_float32_history_is_kept_in_float32_as_pytorchs(torch_ref) -> None:
    """PyTorch keeps rho, alpha and the Hessian scale as 0-d tensors of the parameters' dtype, so a
    float32 run computes its history in float32; Python floats here made it float64 (the first
    rho differed in the fourth digit on a small network). Rosenbrock's gradient is elementwise,
    bit-equal in both libraries, so what is left between them is the update's rounding (PyTorch's
    ``add_`` with ``alpha`` is one fused multiply-add): one step of four iterations agrees to 1e-6."""
    ours, ours_state = _float32_rosenbrock_state(minitorch, 1)
    theirs, theirs_state = _float32_rosenbrock_state(torch_ref, 1)
    for name in ("ro", "al"):
        kept = [value for value in ours_state[name] if value is not None]
        assert kept and all(isinstance(v, minitorch.Tensor) and v.dtype == minitorch.float32 and v.dim() == 0
                            for v in kept)
        expected = [float(v) for v in theirs_state[name] if v is not None]
        np.testing.assert_allclose([float(v) for v in kept], expected, rtol=1e-6)
    assert ours_state["H_diag"].dtype == minitorch.float32 and ours_state["H_diag"].dim() == 0
    assert float(ours_state["H_diag"]) == pytest.approx(float(theirs_state["H_diag"]), rel=1e-6)
    assert type(ours_state["t"]) is type(theirs_state["t"])
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
