"""The cpu backend's fused SGD step (``backends/cpu_optim.py``, reached through ``optim_dispatch``).

Oracles: the tensor-op update of :class:`minitorch.optim.SGD` (the same arithmetic, so the same
bits), a float64 NumPy SGD written from the formulas, and PyTorch's SGD.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fused_optim_runs as runs
import minitorch
from minitorch.backends.base import SgdStep
from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK
from minitorch.optim import sgd as sgd_module
from minitorch.optim_dispatch import sgd_step_op
from torch_oracle import import_torch

SGD = runs.Optimizer(minitorch.optim.SGD, sgd_module, "fused_sgd_fits", steps=5, lr=0.05)
SHAPE = (7, 5)
STEPS, LR = SGD.steps, SGD.lr
#: SGD's options, each with the others at their defaults
VARIANTS = [
    {},
    {"weight_decay": 0.1},
    {"maximize": True, "weight_decay": 0.01},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.3},
    {"momentum": 0.8, "nesterov": True, "weight_decay": 0.05},
    {"momentum": 0.5, "dampening": 0.5, "maximize": True},
]
DTYPES = [minitorch.float32, minitorch.float64]


def gradients(dtype: minitorch.dtype, shape: tuple[int, ...] = SHAPE, seed: int = 0) -> list[np.ndarray]:
    return runs.gradients(SGD, dtype, shape, seed)


def train(dtype: minitorch.dtype, options: dict[str, Any], fused: bool, monkeypatch: pytest.MonkeyPatch,
          grads: list[np.ndarray] | None = None) -> runs.Run:
    """``STEPS`` steps of one parameter from fixed gradients (:func:`fused_optim_runs.train`)."""
    return runs.train(SGD, dtype, options, fused, monkeypatch, gradients(dtype) if grads is None else grads)


def numpy_sgd(start: np.ndarray, grads: list[np.ndarray], options: dict[str, Any]) -> np.ndarray:
    """SGD in float64 from the formulas of PyTorch's documentation."""
    momentum, dampening = options.get("momentum", 0.0), options.get("dampening", 0.0)
    decay = options.get("weight_decay", 0.0)
    theta = start.astype(np.float64)
    buffer = None
    for grad in grads:
        g = -grad.astype(np.float64) if options.get("maximize") else grad.astype(np.float64)
        g = g + decay * theta
        if momentum:
            buffer = g if buffer is None else momentum * buffer + (1 - dampening) * g
            g = g + momentum * buffer if options.get("nesterov") else buffer
        theta = theta - LR * g
    return theta


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_fused_step_is_the_tensor_op_step_bit_for_bit(dtype: minitorch.dtype, options: dict[str, Any],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    runs.check_fused_is_tensor_ops(SGD, dtype, options, monkeypatch, gradients(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_fused_step_matches_sgd_from_the_formulas(dtype: minitorch.dtype, options: dict[str, Any],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    runs.check_fused_against_formulas(SGD, dtype, options, monkeypatch, gradients(dtype), numpy_sgd)


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_fused_step_matches_pytorch(options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    torch = import_torch()
    grads = gradients(minitorch.float32)
    fused, fused_state, _ = train(minitorch.float32, options, True, monkeypatch, grads)
    expected, expected_state = runs.pytorch_steps(torch.optim.SGD, grads, LR, options)
    np.testing.assert_allclose(fused, expected, rtol=1e-6, atol=1e-7)
    if "momentum" in options:
        np.testing.assert_allclose(fused_state["momentum_buffer"], expected_state["momentum_buffer"], rtol=1e-6, atol=1e-7)


def test_large_parameter_takes_the_threaded_kernel_and_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    grads = gradients(minitorch.float32, shape=(PARALLEL_MIN_WORK // 64 + 3, 64))
    for options in ({}, {"momentum": 0.9, "nesterov": True}):
        fused, fused_state, steps = train(minitorch.float32, options, True, monkeypatch, grads)
        plain, plain_state, _ = train(minitorch.float32, options, False, monkeypatch, grads)
        assert steps == STEPS
        np.testing.assert_array_equal(fused, plain)
        for name in fused_state:
            np.testing.assert_array_equal(fused_state[name], plain_state[name], err_msg=name)


def test_nan_and_inf_gradients_land_where_the_tensor_ops_put_them(monkeypatch: pytest.MonkeyPatch) -> None:
    grads = gradients(minitorch.float32)
    grads[1][0, 0], grads[2][1, 1], grads[2][2, 2] = np.nan, np.inf, -np.inf
    for options in ({}, {"momentum": 0.9, "weight_decay": 0.1}):
        fused = train(minitorch.float32, options, True, monkeypatch, grads)
        runs.assert_same_bits(fused, train(minitorch.float32, options, False, monkeypatch, grads))
        assert np.isnan(fused.param[0, 0])


def test_momentum_buffer_is_made_at_the_first_step_and_kept() -> None:
    param = minitorch.ones(3, requires_grad=True)
    optimizer = minitorch.optim.SGD([param], lr=0.1, momentum=0.9)
    param.grad = minitorch.tensor([1.0, 2.0, 3.0])
    optimizer.step()
    buffer = optimizer.state[param]["momentum_buffer"]
    np.testing.assert_array_equal(buffer.numpy(), [1.0, 2.0, 3.0])  # the first direction, as PyTorch keeps it
    assert not buffer.requires_grad
    version = buffer._version
    optimizer.step()
    assert optimizer.state[param]["momentum_buffer"] is buffer and buffer._version > version
    np.testing.assert_allclose(buffer.numpy(), [1.9, 3.8, 5.7], rtol=1e-6)


def test_a_saved_parameter_changed_by_the_step_is_caught_in_backward() -> None:
    param = minitorch.ones(3, requires_grad=True)
    optimizer = minitorch.optim.SGD([param], lr=0.1)
    loss = (param * param).sum()  # saves param for its backward
    param.grad = minitorch.ones(3)
    optimizer.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_a_strided_momentum_buffer_takes_the_tensor_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    """A buffer loaded in another layout: the tensor ops update it, with the same numbers."""
    param = minitorch.ones(4, 3, requires_grad=True)
    twin = minitorch.ones(4, 3, requires_grad=True)
    results = []
    for p, buffer in ((param, minitorch.ones(3, 4).t()), (twin, minitorch.ones(4, 3))):
        optimizer = minitorch.optim.SGD([p], lr=0.1, momentum=0.9)
        optimizer.state[p]["momentum_buffer"] = buffer
        with minitorch.no_grad():
            fits = sgd_module.fused_sgd_fits(p, minitorch.ones(4, 3), optimizer.state[p], optimizer.param_groups[0])
        assert fits is buffer.is_contiguous()
        for grad in gradients(minitorch.float32, shape=(4, 3)):
            p.grad = minitorch.tensor(grad)
            optimizer.step()
        results.append(p.detach().numpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_simple_backend_has_no_fused_kernel_and_trains_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    grads = gradients(minitorch.float32)
    options = {"momentum": 0.9, "nesterov": True}
    cpu, _, steps = train(minitorch.float32, options, True, monkeypatch, grads)
    assert steps == STEPS
    with minitorch.backends.use("simple"):
        simple, _, simple_steps = train(minitorch.float32, options, True, monkeypatch, grads)
    assert simple_steps == 0
    np.testing.assert_allclose(simple, cpu, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("make_bad, named", [
    (lambda: (minitorch.zeros(3), minitorch.zeros(4)), "[3]"),
    (lambda: (minitorch.zeros(3), minitorch.zeros(3, dtype=minitorch.float64)), "float64"),
    (lambda: (minitorch.zeros(2, 3).t(), minitorch.zeros(3, 2)), "strided"),
    (lambda: (minitorch.zeros(3, dtype=minitorch.int64), minitorch.zeros(3, dtype=minitorch.int64)), "int64"),
], ids=["shape", "dtype", "strided", "integer"])
def test_sgd_step_op_refuses_what_its_kernel_cannot_take(make_bad: Any, named: str) -> None:
    param, grad = make_bad()
    with pytest.raises(ValueError, match="sgd_step: the cpu backend's fused SGD") as error:
        sgd_step_op(param, grad, None, SgdStep(lr=0.1))
    assert named in str(error.value)


def test_with_grad_mode_on_the_tensor_ops_and_their_checks_apply() -> None:
    param = minitorch.ones(3, requires_grad=True)
    group = {"lr": 0.1, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False, "maximize": False}
    assert not sgd_module.fused_sgd_fits(param, minitorch.ones(3), {}, group)
    with minitorch.no_grad():
        assert sgd_module.fused_sgd_fits(param, minitorch.ones(3), {}, group)
