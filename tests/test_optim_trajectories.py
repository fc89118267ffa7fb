"""Every optimizer option against PyTorch: the same float64 trajectory, step by step.

Both frameworks start from the same NumPy values and minimise (or, with ``maximize``,
maximise the negation of) the same smooth non-quadratic objective of two parameters; after
every step the parameters must agree to ``RTOL``. The full grids of options run on the
default backend; one rich combination per optimizer (and the param-group tests) run on
every backend.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

STEPS = 6
RTOL = 1e-10
ATOL = 1e-12
SEED = 7
WEIGHT_SHAPE = (3, 4)
BIAS_SHAPE = (4,)
#: weight of the quartic term that makes the objective non-quadratic
QUARTIC = 0.1


def _problem(seed: int = SEED) -> dict[str, np.ndarray]:
    """Starting parameters and the data of the objective, drawn once with NumPy."""
    rng = np.random.default_rng(seed)
    return {
        "weight": rng.standard_normal(WEIGHT_SHAPE),
        "bias": rng.standard_normal(BIAS_SHAPE),
        "inputs": rng.standard_normal((5, WEIGHT_SHAPE[0])),
        "targets": rng.standard_normal((5, WEIGHT_SHAPE[1])),
    }


def objective(lib: Any, weight: Any, bias: Any, inputs: Any, targets: Any, maximize: bool) -> Any:
    """``mean((x W + b - y)^2) + 0.1 sum(W^4)``, negated when the optimizer maximises."""
    loss = ((inputs @ weight + bias - targets) ** 2).mean() + QUARTIC * (weight**4).sum()
    return -loss if maximize else loss


def trajectory(lib: Any, optimizer_name: str, options: dict[str, Any], steps: int = STEPS,
               groups: Callable[[list[Any]], Any] | None = None) -> list[list[np.ndarray]]:
    """Parameters (as NumPy) after each of ``steps`` updates, in ``lib`` (minitorch or torch)."""
    data = _problem()
    weight = lib.tensor(data["weight"], dtype=lib.float64, requires_grad=True)
    bias = lib.tensor(data["bias"], dtype=lib.float64, requires_grad=True)
    inputs = lib.tensor(data["inputs"], dtype=lib.float64)
    targets = lib.tensor(data["targets"], dtype=lib.float64)
    params = [weight, bias] if groups is None else groups([weight, bias])
    optimizer = getattr(lib.optim, optimizer_name)(params, **options)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        objective(lib, weight, bias, inputs, targets, options.get("maximize", False)).backward()
        optimizer.step()
        history.append([weight.detach().numpy().copy(), bias.detach().numpy().copy()])
    return history


def assert_same_trajectory(ours: list[list[np.ndarray]], theirs: list[list[np.ndarray]]) -> None:
    assert len(ours) == len(theirs)
    for step, (mine, reference) in enumerate(zip(ours, theirs)):
        for got, expected in zip(mine, reference):
            np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL, err_msg=f"after step {step + 1}")


def _grid(**axes: list[Any]) -> list[dict[str, Any]]:
    names = list(axes)
    return [dict(zip(names, values)) for values in itertools.product(*axes.values())]


SGD_CASES = [
    case for case in _grid(lr=[0.05], momentum=[0.0, 0.9], dampening=[0.0, 0.3], nesterov=[False, True],
                           weight_decay=[0.0, 0.1], maximize=[False, True])
    if not (case["nesterov"] and (case["momentum"] == 0 or case["dampening"] != 0))
]
ADAM_CASES = _grid(lr=[0.05], betas=[(0.9, 0.999), (0.5, 0.9)], eps=[1e-8, 1e-3], weight_decay=[0.0, 0.1],
                   amsgrad=[False, True], maximize=[False, True])
RMSPROP_CASES = _grid(lr=[0.01], alpha=[0.99, 0.9], momentum=[0.0, 0.5], centered=[False, True],
                      weight_decay=[0.0, 0.1], maximize=[False, True])
ADAGRAD_CASES = _grid(lr=[0.1], lr_decay=[0.0, 0.1], initial_accumulator_value=[0.0, 0.5], eps=[1e-10, 1e-2],
                      weight_decay=[0.0, 0.1], maximize=[False, True])


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return ["-".join(f"{key}={value}" for key, value in case.items() if key != "lr") for case in cases]


@pytest.mark.task("6.1")
@pytest.mark.parametrize("options", SGD_CASES, ids=_ids(SGD_CASES))
def test_sgd_matches_torch(torch_ref: Any, options: dict[str, Any]) -> None:
    assert_same_trajectory(trajectory(minitorch, "SGD", options), trajectory(torch_ref, "SGD", options))


@pytest.mark.task("6.2")
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("options", ADAM_CASES, ids=_ids(ADAM_CASES))
def test_adam_and_adamw_match_torch(torch_ref: Any, name: str, options: dict[str, Any]) -> None:
    assert_same_trajectory(trajectory(minitorch, name, options), trajectory(torch_ref, name, options))


@pytest.mark.task("6.3")
@pytest.mark.parametrize("options", RMSPROP_CASES, ids=_ids(RMSPROP_CASES))
def test_rmsprop_matches_torch(torch_ref: Any, options: dict[str, Any]) -> None:
    assert_same_trajectory(trajectory(minitorch, "RMSprop", options), trajectory(torch_ref, "RMSprop", options))


@pytest.mark.task("6.4")
@pytest.mark.parametrize("options", ADAGRAD_CASES, ids=_ids(ADAGRAD_CASES))
def test_adagrad_matches_torch(torch_ref: Any, options: dict[str, Any]) -> None:
    assert_same_trajectory(trajectory(minitorch, "Adagrad", options), trajectory(torch_ref, "Adagrad", options))


RICH_OPTIONS = {
    "SGD": ("6.1", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    "Adam": ("6.2", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "betas": (0.5, 0.9)}),
    "AdamW": ("6.2", {"lr": 0.05, "amsgrad": True, "maximize": True}),
    "RMSprop": ("6.3", {"centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    "Adagrad": ("6.4", {"lr_decay": 0.1, "initial_accumulator_value": 0.5, "weight_decay": 0.1}),
}


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.task(task)) for name, (task, _) in RICH_OPTIONS.items()]
)
def test_on_every_backend(backend: str, torch_ref: Any, name: str) -> None:
    options = RICH_OPTIONS[name][1]
    assert_same_trajectory(trajectory(minitorch, name, options), trajectory(torch_ref, name, options))


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.task(task)) for name, (task, _) in RICH_OPTIONS.items()]
)
def test_default_options_match_torch(torch_ref: Any, name: str) -> None:
    assert_same_trajectory(trajectory(minitorch, name, {}), trajectory(torch_ref, name, {}))


GROUP_OPTIONS = {
    "SGD": ({"lr": 0.05, "momentum": 0.9, "nesterov": True}, {"lr": 0.01, "weight_decay": 0.1}),
    "Adam": ({"lr": 0.05, "amsgrad": True}, {"lr": 0.01, "betas": (0.5, 0.9), "weight_decay": 0.1}),
    "AdamW": ({"lr": 0.05}, {"weight_decay": 0.3, "eps": 1e-3}),
    "RMSprop": ({"lr": 0.01, "centered": True}, {"momentum": 0.5, "alpha": 0.9}),
    "Adagrad": ({"lr_decay": 0.1}, {"lr": 0.3, "initial_accumulator_value": 0.5}),
}


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.task(RICH_OPTIONS[name][0])) for name in sorted(GROUP_OPTIONS)]
)
def test_param_groups_with_their_own_options(backend: str, torch_ref: Any, name: str) -> None:
    first, second = GROUP_OPTIONS[name]

    def groups(params: list[Any]) -> list[dict[str, Any]]:
        return [{"params": [params[0]], **first}, {"params": [params[1]], **second}]

    defaults = {"lr": 0.02}
    ours = trajectory(minitorch, name, defaults, groups=groups)
    assert_same_trajectory(ours, trajectory(torch_ref, name, defaults, groups=groups))
    # the groups really differ: one group's options for both parameters give another path
    assert not np.allclose(ours[-1][1], trajectory(minitorch, name, {**defaults, **first})[-1][1])
