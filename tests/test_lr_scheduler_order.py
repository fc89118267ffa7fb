"""PyTorch's checks of the order of ``optimizer.step()`` and ``scheduler.step()``, and
ReduceLROnPlateau's state_dict (its keys in PyTorch's order, ``mode_worse`` included); compared
with PyTorch at run time."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

import minitorch

torch = pytest.importorskip("torch")

ORDERS = ["optimizer first", "scheduler first", "optimizer.step replaced", "no optimizer step"]


def _schedule(lib: ModuleType, order: str) -> tuple[list[str], list[float]]:
    param = lib.nn.Parameter(lib.ones(2))
    optimizer = lib.optim.SGD([param], lr=0.1)
    scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if order == "optimizer.step replaced":
            optimizer.step = lambda: None
        for _ in range(3):
            if order == "optimizer first":
                optimizer.step()
            scheduler.step()
            if order == "scheduler first":
                optimizer.step()
    return [str(w.message) for w in caught], scheduler.get_last_lr()


@pytest.mark.parametrize("order", ORDERS)
def test_the_step_order_warnings_are_pytorchs(order: str) -> None:
    assert _schedule(minitorch, order) == _schedule(torch, order)


def test_a_second_scheduler_on_one_optimizer_tracks_it_once() -> None:
    optimizer = minitorch.optim.SGD([minitorch.nn.Parameter(minitorch.ones(2))], lr=0.1)
    first = minitorch.optim.lr_scheduler.StepLR(optimizer, 2)
    step = optimizer.step
    minitorch.optim.lr_scheduler.ExponentialLR(optimizer, 0.5)
    assert optimizer.step is step  # not wrapped twice
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.step()
        first.step()


def _plateau_state(lib: ModuleType, mode: str) -> dict[str, Any]:
    optimizer = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode=mode, patience=1)
    for metric in (1.0, 0.5, 0.7, 0.9, 0.8):
        scheduler.step(metric)
    return {key: value for key, value in scheduler.state_dict().items() if key != "optimizer"}


@pytest.mark.parametrize("mode", ["min", "max"])
def test_reduce_on_plateau_state_dict_is_pytorchs(mode: str) -> None:
    ours, theirs = _plateau_state(minitorch, mode), _plateau_state(torch, mode)
    assert list(ours) == list(theirs)
    assert ours == theirs
