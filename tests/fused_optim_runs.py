"""Training runs shared by the fused-optimizer tests (``test_fused_sgd.py``, ``test_fused_adam.py``).

A run takes a few optimizer steps of one parameter from fixed gradients, with the optimizer's
check "does the fused kernel take this step?" wrapped by a spy: the spy counts the steps the
fused kernel took, or (``fused=False``) answers no, so the same steps run by the tensor ops.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, NamedTuple

import numpy as np
import pytest

import minitorch


@dataclass(frozen=True)
class Optimizer:
    """One optimizer under test: its class, the module whose ``fits_name`` function decides
    whether a step is fused, and the steps and learning rate of a run."""

    make: type
    module: ModuleType
    fits_name: str
    steps: int
    lr: float


class Run(NamedTuple):
    """What a run leaves: the parameter, the optimizer's state and how many steps were fused."""

    param: np.ndarray
    state: dict[str, np.ndarray]
    fused_steps: int


def gradients(optimizer: Optimizer, dtype: minitorch.dtype, shape: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype.numpy) for _ in range(optimizer.steps)]


def start_value(shape: tuple[int, ...], dtype: minitorch.dtype) -> np.ndarray:
    """The parameter's value before the first step."""
    return np.random.default_rng(1).standard_normal(shape).astype(dtype.numpy)


def train(optimizer: Optimizer, dtype: minitorch.dtype, options: dict[str, Any], fused: bool,
          monkeypatch: pytest.MonkeyPatch, grads: list[np.ndarray], device: str = "cpu") -> Run:
    """One step per gradient in ``grads``, from :func:`start_value`, with the parameter on ``device``."""
    param = minitorch.tensor(start_value(grads[0].shape, dtype), requires_grad=True, device=device)
    stepper = optimizer.make([param], lr=optimizer.lr, **options)
    taken = []
    fits = getattr(optimizer.module, optimizer.fits_name)

    def spy(*args: Any) -> bool:
        answer = fused and fits(*args)
        taken.append(answer)
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(optimizer.module, optimizer.fits_name, spy)
        for grad in grads:
            param.grad = minitorch.tensor(grad, device=device)
            stepper.step()
    state = {k: v.cpu().numpy() for k, v in stepper.state[param].items()}
    return Run(param.detach().cpu().numpy(), state, sum(taken))


def assert_same_bits(fused: Run, plain: Run) -> None:
    """The fused run left exactly the parameter and state the tensor-op run left (NaN where NaN)."""
    np.testing.assert_array_equal(fused.param, plain.param)
    assert fused.state.keys() == plain.state.keys()
    for name in fused.state:
        np.testing.assert_array_equal(fused.state[name], plain.state[name], err_msg=name)


def check_fused_is_tensor_ops(optimizer: Optimizer, dtype: minitorch.dtype, options: dict[str, Any],
                              monkeypatch: pytest.MonkeyPatch, grads: list[np.ndarray]) -> None:
    """Every step fused, every step by the tensor ops: the same bits."""
    fused, plain = (train(optimizer, dtype, options, use, monkeypatch, grads) for use in (True, False))
    assert (fused.fused_steps, plain.fused_steps) == (optimizer.steps, 0)
    assert_same_bits(fused, plain)


def check_fused_against_formulas(optimizer: Optimizer, dtype: minitorch.dtype, options: dict[str, Any],
                                 monkeypatch: pytest.MonkeyPatch, grads: list[np.ndarray],
                                 formulas: Callable[[np.ndarray, list[np.ndarray], dict[str, Any]], np.ndarray]) -> None:
    """The fused steps against ``formulas(start, grads, options)``, an update written in float64."""
    fused = train(optimizer, dtype, options, True, monkeypatch, grads)
    assert fused.fused_steps == optimizer.steps
    tolerance = 1e-5 if dtype is minitorch.float32 else 1e-12
    expected = formulas(start_value(grads[0].shape, dtype), grads, options)
    np.testing.assert_allclose(fused.param, expected, rtol=tolerance, atol=tolerance)


def pytorch_steps(torch_optimizer: type, grads: list[np.ndarray], lr: float,
                  options: dict[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The same steps by PyTorch's optimizer (float32): its parameter and state."""
    import torch

    param = torch.tensor(start_value(grads[0].shape, minitorch.float32), requires_grad=True)
    stepper = torch_optimizer([param], lr=lr, **options)
    for grad in grads:
        param.grad = torch.tensor(grad)
        stepper.step()
    state = {k: v.numpy() for k, v in stepper.state[param].items() if isinstance(v, torch.Tensor) and v.dim()}
    return param.detach().numpy(), state
