"""Optimizer options as PyTorch stores them: ``param_groups`` keys, order and defaults, switches."""

from __future__ import annotations

from typing import Any

import pytest

import minitorch

from test_optim_trajectories import assert_same_trajectory, trajectory

OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax"]


def _group(lib: Any, name: str, **options: Any) -> dict[str, Any]:
    param = lib.nn.Parameter(lib.zeros(2))
    return getattr(lib.optim, name)([param], **options).state_dict()["param_groups"][0]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_param_group_keys_order_and_defaults_match_torch(torch_ref: Any, name: str) -> None:
    assert list(_group(minitorch, name).items()) == list(_group(torch_ref, name).items())


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_foreach_is_stored_as_given(torch_ref: Any, name: str) -> None:
    assert _group(minitorch, name, foreach=True) == _group(torch_ref, name, foreach=True)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_torch_state_dict_loads_and_round_trips(torch_ref: Any, name: str) -> None:
    saved = getattr(torch_ref.optim, name)([torch_ref.nn.Parameter(torch_ref.zeros(2))], lr=0.3).state_dict()
    ours = getattr(minitorch.optim, name)([minitorch.nn.Parameter(minitorch.zeros(2))])
    ours.load_state_dict(saved)
    assert ours.state_dict()["param_groups"] == saved["param_groups"]


def test_adam_with_decoupled_weight_decay_matches_torch(torch_ref: Any) -> None:
    options = {"lr": 0.05, "weight_decay": 0.2, "decoupled_weight_decay": True}
    ours = trajectory(minitorch, "Adam", options)
    assert_same_trajectory(ours, trajectory(torch_ref, "Adam", options))
    assert_same_trajectory(ours, trajectory(torch_ref, "AdamW", {"lr": 0.05, "weight_decay": 0.2}))


@pytest.mark.parametrize("options", [{}, {"lr": 0.05, "betas": (0.5, 0.8), "weight_decay": 0.1},
                                     {"lr": 0.05, "maximize": True, "eps": 1e-3}])
def test_adamax_trajectory_matches_torch(torch_ref: Any, options: dict[str, Any]) -> None:
    assert_same_trajectory(trajectory(minitorch, "Adamax", options), trajectory(torch_ref, "Adamax", options))
