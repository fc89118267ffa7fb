"""Which parameters an optimizer's state holds an entry for, PyTorch as the oracle: plain SGD
keeps nothing (its state dict's ``state`` is empty), the others one entry per updated parameter."""

from __future__ import annotations

from types import ModuleType

import pytest

import minitorch

CASES = [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {}), ("RMSprop", {}), ("Adagrad", {})]


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}{o}" for n, o in CASES])
def test_state_entries_as_torch(name: str, options: dict, torch_ref: ModuleType) -> None:
    outcomes = []
    for lib in (minitorch, torch_ref):
        first, second = lib.nn.Linear(3, 2), lib.nn.Linear(2, 1)
        optimizer = getattr(lib.optim, name)([*first.parameters(), *second.parameters()], **options)
        first(lib.ones(4, 3)).sum().backward()  # only the first layer gets gradients
        optimizer.step()
        state = optimizer.state_dict()["state"]
        outcomes.append({index: sorted(entry) for index, entry in state.items()})
    assert outcomes[0] == outcomes[1]
