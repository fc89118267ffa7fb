"""``Module.set_submodule`` and ``Module.to_empty`` against PyTorch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import minitorch


def _model(lib: ModuleType) -> Any:
    nn = lib.nn
    return nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))


CASES = [("1.0", "Tanh", {}), ("1.1", "Identity", {"strict": True}), ("2", "ReLU", {}), ("1.0.extra", "ReLU", {}),
         ("", "ReLU", {}), ("5.x", "ReLU", {}), ("1.9", "ReLU", {"strict": True}), ("0", None, {}),
         ("0.weight", "ReLU", {})]


@pytest.mark.parametrize(("target", "kind", "options"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_set_submodule_as_torch(target: str, kind: Any, options: dict, torch_ref: ModuleType) -> None:
    outcomes = []
    for lib in (minitorch, torch_ref):
        model = _model(lib)
        module = getattr(lib.nn, kind)() if kind else "not a module"
        try:
            model.set_submodule(target, module, **options)
            outcomes.append(("ok", repr(model), [name for name, _ in model.named_modules()]))
        except (AttributeError, ValueError) as error:
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("recurse", [True, False])
def test_to_empty_as_torch(recurse: bool, torch_ref: ModuleType) -> None:
    outcomes = []
    for lib in (minitorch, torch_ref):
        model = _model(lib)
        model.register_buffer("steps", lib.zeros(4, dtype=lib.int64))
        params = list(model.parameters())
        pointers = [p.data_ptr() for p in params]
        assert model.to_empty(device="cpu", recurse=recurse) is model
        after = list(model.parameters())
        outcomes.append((
            [p is q for p, q in zip(params, after)],            # the same Parameter objects
            [p.data_ptr() != old for p, old in zip(after, pointers)],  # fresh memory where converted
            [(tuple(p.shape), str(p.dtype).rsplit(".", 1)[-1], p.requires_grad) for p in after],
            (tuple(model.steps.shape), str(model.steps.dtype).rsplit(".", 1)[-1]),
        ))
    assert outcomes[0] == outcomes[1]
