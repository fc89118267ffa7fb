"""The cpu backend's fused Adam step (``backends/cpu_optim.py``, reached through ``optim_dispatch``).

Oracles: the tensor-op update of :func:`minitorch.optim.adam.adam_update` (the same arithmetic,
so the same bits), a float64 NumPy Adam written from the paper's formulas, and PyTorch's Adam.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import fused_optim_runs as runs
import minitorch
from minitorch.backends.base import AdamStep
from minitorch.optim import adam as adam_module
from minitorch.optim_dispatch import adam_step_op, fused_update_fits
from torch_oracle import import_torch

ADAM = runs.Optimizer(minitorch.optim.Adam, adam_module, "fused_adam_fits", steps=6, lr=0.01)
SHAPE = (7, 5)
STEPS, LR = ADAM.steps, ADAM.lr
#: Adam's options, each with the others at their defaults
VARIANTS = [
    {},
    {"weight_decay": 0.1},
    {"weight_decay": 0.1, "decoupled_weight_decay": True},
    {"amsgrad": True},
    {"maximize": True},
    {"betas": (0.5, 0.75), "eps": 1e-3, "amsgrad": True, "weight_decay": 0.05},
]
DTYPES = [minitorch.float32, minitorch.float64]


def gradients(dtype: minitorch.dtype, shape: tuple[int, ...] = SHAPE, seed: int = 0) -> list[np.ndarray]:
    return runs.gradients(ADAM, dtype, shape, seed)


def train(dtype: minitorch.dtype, options: dict[str, Any], fused: bool, monkeypatch: pytest.MonkeyPatch,
          grads: list[np.ndarray] | None = None) -> runs.Run:
    """``STEPS`` steps of one parameter from fixed gradients (:func:`fused_optim_runs.train`)."""
    return runs.train(ADAM, dtype, options, fused, monkeypatch, gradients(dtype) if grads is None else grads)


def numpy_adam(start: np.ndarray, grads: list[np.ndarray], options: dict[str, Any]) -> np.ndarray:
    """Adam in float64 from the formulas (Kingma and Ba; Loshchilov and Hutter for the decoupled decay)."""
    beta1, beta2 = options.get("betas", (0.9, 0.999))
    eps, decay = options.get("eps", 1e-8), options.get("weight_decay", 0.0)
    theta = start.astype(np.float64)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    v_max = np.zeros_like(theta)
    for t, grad in enumerate(grads, start=1):
        g = -grad.astype(np.float64) if options.get("maximize") else grad.astype(np.float64)
        if options.get("decoupled_weight_decay"):
            theta = theta * (1 - LR * decay)
        else:
            g = g + decay * theta
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        v_max = np.maximum(v_max, v)
        second = v_max if options.get("amsgrad") else v
        theta = theta - LR / (1 - beta1**t) * m / (np.sqrt(second) / math.sqrt(1 - beta2**t) + eps)
    return theta


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_fused_step_is_the_tensor_op_step_bit_for_bit(dtype: minitorch.dtype, options: dict[str, Any],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    runs.check_fused_is_tensor_ops(ADAM, dtype, options, monkeypatch, gradients(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_fused_step_matches_adam_from_the_formulas(dtype: minitorch.dtype, options: dict[str, Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    runs.check_fused_against_formulas(ADAM, dtype, options, monkeypatch, gradients(dtype), numpy_adam)


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_fused_step_matches_pytorch(options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    torch = import_torch()
    grads = gradients(minitorch.float32)
    fused, _, _ = train(minitorch.float32, options, True, monkeypatch, grads)
    expected, _ = runs.pytorch_steps(torch.optim.Adam, grads, LR, options)
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-6)


def test_large_parameter_takes_the_threaded_kernel_and_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    from minitorch.backends.cpu_kernels import PARALLEL_MIN_WORK

    grads = gradients(minitorch.float32, shape=(PARALLEL_MIN_WORK // 64 + 3, 64))
    fused, _, steps = train(minitorch.float32, {"amsgrad": True}, True, monkeypatch, grads)
    plain, _, _ = train(minitorch.float32, {"amsgrad": True}, False, monkeypatch, grads)
    assert steps == STEPS
    np.testing.assert_array_equal(fused, plain)


def test_nan_and_inf_gradients_land_where_the_tensor_ops_put_them(monkeypatch: pytest.MonkeyPatch) -> None:
    grads = gradients(minitorch.float32)
    grads[2][0, 0], grads[3][1, 1], grads[3][2, 2] = np.nan, np.inf, -np.inf
    for options in ({}, {"amsgrad": True}):
        fused = train(minitorch.float32, options, True, monkeypatch, grads)
        runs.assert_same_bits(fused, train(minitorch.float32, options, False, monkeypatch, grads))
        assert np.isnan(fused.param[0, 0])


def test_step_counts_a_new_version_of_what_it_writes() -> None:
    param = minitorch.ones(3, requires_grad=True)
    optimizer = minitorch.optim.Adam([param], amsgrad=True)
    param.grad = minitorch.ones(3)
    optimizer.step()  # makes the state
    state = optimizer.state[param]
    before = [t._version for t in (param, state["exp_avg"], state["exp_avg_sq"], state["max_exp_avg_sq"])]
    grad_version = param.grad._version
    optimizer.step()
    after = [t._version for t in (param, state["exp_avg"], state["exp_avg_sq"], state["max_exp_avg_sq"])]
    assert all(b > a for a, b in zip(before, after))
    assert param.grad._version == grad_version  # read, not written


def test_a_saved_parameter_changed_by_the_step_is_caught_in_backward() -> None:
    param = minitorch.ones(3, requires_grad=True)
    optimizer = minitorch.optim.Adam([param])
    loss = (param * param).sum()  # saves param for its backward
    param.grad = minitorch.ones(3)
    optimizer.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_strided_or_mixed_operands_take_the_tensor_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    base = minitorch.randn(5, 7)
    transposed = base.t().detach().requires_grad_()  # a strided leaf
    grad = minitorch.randn(7, 5)
    assert not fused_update_fits(transposed, grad, [minitorch.zeros(7, 5)])
    assert not fused_update_fits(grad, grad.t().contiguous().t(), [minitorch.zeros(7, 5)])
    assert not fused_update_fits(grad, grad.double(), [minitorch.zeros(7, 5)])
    assert not fused_update_fits(grad, grad.clone(), [minitorch.zeros(7, 4)])
    assert not fused_update_fits(grad, grad, [minitorch.zeros(7, 5)])  # the gradient is the parameter
    half = minitorch.zeros(7, 5, dtype=minitorch.float16)
    assert not fused_update_fits(half, half.clone(), [half.clone()])
    assert fused_update_fits(grad, grad.clone(), [minitorch.zeros(7, 5), minitorch.zeros(7, 5)])
    # a strided parameter still trains, by the tensor ops: the same numbers as a contiguous one
    param = minitorch.tensor(np.arange(35.0, dtype=np.float32).reshape(5, 7)).t().detach().requires_grad_()
    twin = param.detach().contiguous().requires_grad_()
    for p in (param, twin):
        optimizer = minitorch.optim.Adam([p], lr=LR)
        for g in gradients(minitorch.float32, shape=(7, 5)):
            p.grad = minitorch.tensor(g)
            optimizer.step()
    np.testing.assert_array_equal(param.detach().numpy(), twin.detach().numpy())


def test_simple_backend_has_no_fused_kernel_and_trains_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    grads = gradients(minitorch.float32)
    cpu, _, steps = train(minitorch.float32, {"amsgrad": True}, True, monkeypatch, grads)
    assert steps == STEPS
    with minitorch.backends.use("simple"):
        simple, _, simple_steps = train(minitorch.float32, {"amsgrad": True}, True, monkeypatch, grads)
    assert simple_steps == 0
    np.testing.assert_allclose(simple, cpu, rtol=1e-6, atol=1e-7)


STEP = AdamStep(beta1=0.9, beta2=0.999, eps=1e-8, lr=LR, step_size=LR / 0.1, bias_correction2_sqrt=math.sqrt(0.001))


@pytest.mark.parametrize("make_bad, named", [
    (lambda: (minitorch.zeros(3), minitorch.zeros(4)), "[3]"),
    (lambda: (minitorch.zeros(3), minitorch.zeros(3, dtype=minitorch.float64)), "float64"),
    (lambda: (minitorch.zeros(2, 3).t(), minitorch.zeros(3, 2)), "strided"),
    (lambda: (minitorch.zeros(3, dtype=minitorch.int64), minitorch.zeros(3, dtype=minitorch.int64)), "int64"),
], ids=["shape", "dtype", "strided", "integer"])
def test_adam_step_op_refuses_what_its_kernel_cannot_take(make_bad: Any, named: str) -> None:
    param, grad = make_bad()
    moments = [minitorch.zeros(3), minitorch.zeros(3)]
    with pytest.raises(ValueError, match="fused Adam") as error:
        adam_step_op(param, grad, moments[0], moments[1], None, STEP)
    assert named in str(error.value)


def test_adam_step_op_refuses_a_backend_without_the_kernel() -> None:
    with minitorch.backends.use("simple"):
        operands = [minitorch.zeros(3) for _ in range(4)]
        with pytest.raises(ValueError, match="simple backend"):
            adam_step_op(*operands, None, STEP)


def test_empty_parameter_is_a_no_op() -> None:
    param = minitorch.zeros(0, requires_grad=True)
    optimizer = minitorch.optim.Adam([param])
    param.grad = minitorch.zeros(0)
    optimizer.step()
    assert param.shape == (0,)


def test_with_grad_mode_on_the_tensor_ops_and_their_checks_apply() -> None:
    """Outside ``no_grad`` (a direct call of the update rule) writing into a leaf that requires
    grad is refused, as by the in-place ops; ``Optimizer.step`` runs it under ``no_grad``."""
    param = minitorch.ones(3, requires_grad=True)
    state: dict[str, Any] = {}
    group = {"lr": LR, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False, "maximize": False}
    assert not adam_module.fused_adam_fits(param, minitorch.ones(3), {"exp_avg": minitorch.zeros(3),
                                                                      "exp_avg_sq": minitorch.zeros(3)}, group)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        adam_module.adam_update(param, minitorch.ones(3), state, group)
    with minitorch.no_grad():
        adam_module.adam_update(param, minitorch.ones(3), state, group)
    assert (param.detach().numpy() < 1).all()
