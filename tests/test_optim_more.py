"""Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop against PyTorch (float64 trajectories), and every
optimizer's ``param_groups`` (keys, order, defaults) as PyTorch 2.13 writes them, with
``state_dict``\\ s that load both ways."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from tests.test_optim_trajectories import _grid, _ids, assert_same_trajectory, objective, trajectory, _problem

ALL_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
                  "Rprop"]
#: enough steps for RAdam's rectified branch with betas (0.5, 0.9) and ASGD's averaging (t0)
LONG = 12

NEW_CASES = {
    "Adadelta": _grid(lr=[1.0, 0.3], rho=[0.9, 0.5], eps=[1e-6, 1e-2], weight_decay=[0.0, 0.1],
                      maximize=[False, True]),
    "Adamax": _grid(lr=[0.05], betas=[(0.9, 0.999), (0.5, 0.9)], eps=[1e-8, 1e-1], weight_decay=[0.0, 0.1],
                    maximize=[False, True]),
    "NAdam": _grid(lr=[0.05], betas=[(0.9, 0.999), (0.5, 0.9)], momentum_decay=[4e-3, 0.1],
                   weight_decay=[0.0, 0.1], decoupled_weight_decay=[False, True], maximize=[False, True]),
    "RAdam": _grid(lr=[0.05], betas=[(0.9, 0.999), (0.5, 0.9)], eps=[1e-8, 1e-2], weight_decay=[0.0, 0.1],
                   decoupled_weight_decay=[False, True], maximize=[False, True]),
    "ASGD": _grid(lr=[0.05], lambd=[1e-4, 0.1], alpha=[0.75, 0.5], t0=[1e6, 3.0], weight_decay=[0.0, 0.1],
                  maximize=[False, True]),
    "Rprop": _grid(lr=[0.01, 0.2], etas=[(0.5, 1.2), (0.3, 1.5)], step_sizes=[(1e-6, 50), (1e-3, 0.05)],
                   maximize=[False, True]),
}
CASES = [(name, options) for name, cases in NEW_CASES.items() for options in cases]


@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}-{i}" for n, cases in NEW_CASES.items()
                                                      for i in _ids(cases)])
def test_new_optimizers_match_torch(torch_ref: Any, name: str, options: dict[str, Any]) -> None:
    ours = trajectory(minitorch, name, options, steps=LONG)
    assert_same_trajectory(ours, trajectory(torch_ref, name, options, steps=LONG))
    assert not np.allclose(ours[-1][0], _problem()["weight"])  # the parameters really moved


@pytest.mark.parametrize("name", list(NEW_CASES))
def test_new_optimizers_on_every_backend_with_defaults(backend: str, torch_ref: Any, name: str) -> None:
    assert_same_trajectory(trajectory(minitorch, name, {}, steps=4), trajectory(torch_ref, name, {}, steps=4))


def _params(lib: Any) -> list[Any]:
    data = _problem()
    return [lib.tensor(data["weight"], dtype=lib.float64, requires_grad=True),
            lib.tensor(data["bias"], dtype=lib.float64, requires_grad=True)]


@pytest.mark.parametrize("name", ALL_OPTIMIZERS)
def test_param_group_keys_order_and_defaults_match_torch(torch_ref: Any, name: str) -> None:
    ours = getattr(minitorch.optim, name)(_params(minitorch)).state_dict()["param_groups"]
    theirs = getattr(torch_ref.optim, name)(_params(torch_ref)).state_dict()["param_groups"]
    assert [list(group.items()) for group in ours] == [list(group.items()) for group in theirs]


@pytest.mark.parametrize("name", ALL_OPTIMIZERS)
def test_differentiable_steps_are_refused_clearly(name: str) -> None:
    with pytest.raises(ValueError, match="differentiable=True"):
        getattr(minitorch.optim, name)(_params(minitorch), differentiable=True)


@pytest.mark.parametrize("name, bad, message", [
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adamax", {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
    ("NAdam", {"momentum_decay": -1.0}, "Invalid momentum_decay value: -1.0"),
    ("RAdam", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    ("ASGD", {"lr": -0.1}, "Invalid learning rate: -0.1"),
    ("Rprop", {"etas": (1.5, 1.2)}, "Invalid eta values: 1.5, 1.2"),
])
def test_bad_options_are_refused_as_torch_words_it(torch_ref: Any, name: str, bad: dict[str, Any],
                                                   message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        getattr(torch_ref.optim, name)(_params(torch_ref), **bad)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        getattr(minitorch.optim, name)(_params(minitorch), **bad)


def _convert(state_dict: dict[str, Any], lib: Any) -> dict[str, Any]:
    """A state dict with its tensors rebuilt in ``lib`` (same values, dtypes)."""
    def tensor_of(value: Any) -> Any:
        if hasattr(value, "detach"):
            array = value.detach().numpy()
            return lib.tensor(array.tolist(), dtype=getattr(lib, str(array.dtype)))
        return value
    return {
        "state": {index: {key: tensor_of(v) for key, v in buffers.items()}
                  for index, buffers in state_dict["state"].items()},
        "param_groups": [dict(group) for group in state_dict["param_groups"]],
    }


def _run(lib: Any, optimizer: Any, params: list[Any], steps: int) -> list[np.ndarray]:
    data = _problem()
    inputs = lib.tensor(data["inputs"], dtype=lib.float64)
    targets = lib.tensor(data["targets"], dtype=lib.float64)
    for _ in range(steps):
        optimizer.zero_grad()
        objective(lib, params[0], params[1], inputs, targets, False).backward()
        optimizer.step()
    return [p.detach().numpy().copy() for p in params]


RICH = {
    "SGD": {"lr": 0.05, "momentum": 0.9, "nesterov": True},
    "Adam": {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1},
    "AdamW": {"lr": 0.05},
    "RMSprop": {"centered": True, "momentum": 0.5},
    "Adagrad": {"lr_decay": 0.1},
    "Adadelta": {"weight_decay": 0.1},
    "Adamax": {"lr": 0.05},
    "NAdam": {"lr": 0.05, "decoupled_weight_decay": True, "weight_decay": 0.1},
    "RAdam": {"lr": 0.05, "betas": (0.5, 0.9)},
    "ASGD": {"lr": 0.05, "t0": 2.0},
    "Rprop": {"lr": 0.05},
}


@pytest.mark.parametrize("name", ALL_OPTIMIZERS)
@pytest.mark.parametrize("direction", ["torch_to_minitorch", "minitorch_to_torch"])
def test_state_dicts_load_both_ways(torch_ref: Any, name: str, direction: str) -> None:
    source, target = (torch_ref, minitorch) if direction == "torch_to_minitorch" else (minitorch, torch_ref)
    first_params = _params(source)
    first = getattr(source.optim, name)(first_params, **RICH[name])
    _run(source, first, first_params, 5)
    saved = first.state_dict()

    def resume(lib: Any) -> list[np.ndarray]:
        """Continue from the source's parameters, options and state in ``lib`` (loading casts
        state such as NAdam's float32 ``mu_product`` to the parameters' dtype, in both libraries)."""
        params = [lib.tensor(p.detach().numpy().tolist(), dtype=lib.float64, requires_grad=True)
                  for p in first_params]
        optimizer = getattr(lib.optim, name)(params)
        optimizer.load_state_dict(_convert(saved, lib))
        assert [list(g.items()) for g in optimizer.state_dict()["param_groups"]] == \
            [list(g.items()) for g in saved["param_groups"]]
        return _run(lib, optimizer, params, 4)

    got, expected = resume(target), resume(source)
    for value, reference in zip(got, expected):
        np.testing.assert_allclose(value, reference, rtol=1e-10, atol=1e-12)
