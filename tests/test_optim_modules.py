"""Optimizers over ``nn.Module`` parameters: a small training step matches PyTorch, ``to()`` keeps working."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch

SEED = 3
IN, HIDDEN, OUT = 4, 6, 3
BATCH = 8
STEPS = 5
#: both frameworks round to float32 (2**-24 relative per operation) and sum in their own
#: orders, which depend on the CPU; through 5 steps the parameters differ by at most 8% of
#: this tolerance (Adagrad, measured with Numba compiling for the host and a generic x86-64)
FLOAT32_RTOL = 1e-5


def _model(lib: Any) -> Any:
    """The same MLP in either framework, with weights copied from one NumPy draw."""
    rng = np.random.default_rng(SEED)
    model = lib.nn.Sequential(lib.nn.Linear(IN, HIDDEN), lib.nn.Tanh(), lib.nn.Linear(HIDDEN, OUT))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def _batch(lib: Any) -> tuple[Any, Any]:
    rng = np.random.default_rng(SEED + 1)
    return lib.tensor(rng.standard_normal((BATCH, IN)).astype(np.float32)), lib.tensor(rng.integers(0, OUT, BATCH))


def _train(lib: Any, name: str, options: dict[str, Any], steps: int = STEPS) -> Any:
    model = _model(lib)
    optimizer = getattr(lib.optim, name)(model.parameters(), **options)
    x, y = _batch(lib)
    for _ in range(steps):
        optimizer.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return model, optimizer


@pytest.mark.parametrize("name,options", [
    pytest.param("SGD", {"lr": 0.1, "momentum": 0.9}, marks=pytest.mark.task("6.1")),
    pytest.param("Adam", {"lr": 0.01}, marks=pytest.mark.task("6.2")),
    pytest.param("AdamW", {"lr": 0.01, "weight_decay": 0.1}, marks=pytest.mark.task("6.2")),
    pytest.param("RMSprop", {"lr": 0.01, "centered": True}, marks=pytest.mark.task("6.3")),
    pytest.param("Adagrad", {"lr": 0.1}, marks=pytest.mark.task("6.4")),
])
def test_training_an_mlp_matches_torch(backend: str, torch_ref: Any, name: str, options: dict[str, Any]) -> None:
    ours, _ = _train(minitorch, name, options)
    theirs, _ = _train(torch_ref, name, options)
    for (key, mine), (their_key, reference) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert key == their_key
        np.testing.assert_allclose(mine.numpy(), reference.detach().numpy(), rtol=FLOAT32_RTOL, atol=1e-6, err_msg=key)


@pytest.mark.task("6.1")
def test_optimizer_keeps_working_after_module_to_dtype(torch_ref: Any) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        model, optimizer = _train(lib, "SGD", {"lr": 0.1, "momentum": 0.9}, steps=2)
        before = list(model.parameters())
        model.double()
        after = list(model.parameters())
        assert len(after) == len(before) and all(a is b for a, b in zip(after, before)), "to() must keep the Parameter objects"
        assert all(p.dtype == lib.float64 for p in optimizer.param_groups[0]["params"])
        x, y = _batch(lib)
        for _ in range(2):
            optimizer.zero_grad()
            lib.nn.functional.cross_entropy(model(x.double()), y).backward()
            optimizer.step()
        results.append([p.detach().numpy() for p in model.parameters()])
    for mine, reference in zip(*results):
        assert mine.dtype == np.float64
        np.testing.assert_allclose(mine, reference, rtol=FLOAT32_RTOL, atol=1e-6)
