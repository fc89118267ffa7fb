"""Automatic mixed precision: ``autocast`` casts as PyTorch's CPU autocast does, and
``GradScaler`` scales, skips and adapts exactly as PyTorch's (both libraries run here)."""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch


def name_of(dtype: Any) -> str:
    return str(dtype).split(".")[-1]


OPS_UNDER_AUTOCAST: dict[str, Callable[[ModuleType, dict[str, Any]], Any]] = {
    "linear": lambda lib, m: m["linear"](m["x"]),
    "matmul": lambda lib, m: m["x"] @ m["x"].T,
    "conv2d": lambda lib, m: m["conv"](m["image"]),
    "softmax": lambda lib, m: m["x"].softmax(-1),
    "mse_loss": lambda lib, m: lib.nn.functional.mse_loss(m["linear"](m["x"]), lib.zeros(4, 2)),
    "cross_entropy": lambda lib, m: lib.nn.functional.cross_entropy(m["linear"](m["x"]), lib.tensor([0, 1, 0, 1])),
    "float64 matmul": lambda lib, m: m["x"].double() @ m["x"].double().T,
    "add": lambda lib, m: m["x"] + m["x"],
}


def modules(lib: ModuleType) -> dict[str, Any]:
    lib.manual_seed(0)
    return {"x": lib.ones(4, 3), "linear": lib.nn.Linear(3, 2), "conv": lib.nn.Conv2d(1, 2, 3), "image": lib.ones(1, 1, 4, 4)}


@pytest.mark.parametrize("op", sorted(OPS_UNDER_AUTOCAST))
def test_autocast_casts_each_op_as_torch_on_cpu(op: str, torch_ref: ModuleType) -> None:
    dtypes = []
    for lib in (minitorch, torch_ref):
        parts = modules(lib)
        with lib.autocast(device_type="cpu", dtype=lib.float16):
            dtypes.append(name_of(OPS_UNDER_AUTOCAST[op](lib, parts).dtype))
    assert dtypes[0] == dtypes[1]


def test_autocast_is_off_outside_its_block_and_nests(torch_ref: ModuleType) -> None:
    x = minitorch.ones(2, 2)
    with minitorch.autocast("cpu", dtype=minitorch.float16):
        assert minitorch.is_autocast_enabled("cpu")
        with minitorch.autocast("cpu", enabled=False):
            assert (x @ x).dtype is minitorch.float32
        assert (x @ x).dtype is minitorch.float16
    assert not minitorch.is_autocast_enabled("cpu")
    assert (x @ x).dtype is minitorch.float32


def test_autocast_as_a_decorator() -> None:
    @minitorch.autocast("cpu", dtype=minitorch.float16)
    def product(x: minitorch.Tensor) -> minitorch.Tensor:
        return x @ x

    assert product(minitorch.ones(2, 2)).dtype is minitorch.float16


def test_gradients_flow_back_to_float32_parameters() -> None:
    linear = minitorch.nn.Linear(3, 2)
    with minitorch.autocast("cpu", dtype=minitorch.float16):
        loss = linear(minitorch.ones(4, 3)).sum()
    loss.backward()
    assert linear.weight.grad.dtype is minitorch.float32
    np.testing.assert_allclose(linear.weight.grad.numpy(), np.full((2, 3), 4.0))


def test_cuda_autocast_and_scaler_without_a_gpu_warn_and_do_nothing_as_torch(
        torch_ref: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    # the suite runs with the CUDA simulator on: take the GPU away, as on a machine without one
    from minitorch.amp import autocast_mode, grad_scaler

    monkeypatch.setattr(autocast_mode, "cuda_is_available", lambda: False)
    monkeypatch.setattr(grad_scaler, "cuda_is_available", lambda: False)
    messages = []
    for lib in (minitorch, torch_ref):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autocast("cuda"):
                enabled = lib.is_autocast_enabled("cuda")
            scaler = lib.amp.GradScaler()
        messages.append(([str(w.message) for w in caught], enabled, scaler.is_enabled(), scaler.get_scale()))
    assert messages[0] == messages[1]


def test_cuda_autocast_on_cuda_tensors() -> None:
    """On a GPU (here Numba's simulator) cuda autocast runs products in float16 and cpu ops are left alone."""
    if not minitorch.cuda.is_available():
        pytest.fail("the test suite runs with Numba's CUDA simulator on")
    x = minitorch.ones(2, 2, device="cuda")
    with minitorch.autocast("cuda"):
        assert (x @ x).dtype is minitorch.float16
        assert x.half().softmax(-1).dtype is minitorch.float32  # softmax is on cuda's float32 list
        assert (minitorch.ones(2, 2) @ minitorch.ones(2, 2)).dtype is minitorch.float32


def test_an_unsupported_dtype_warns_and_disables() -> None:
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of minitorch.bfloat16, minitorch.float16"):
        context = minitorch.autocast("cpu", dtype=minitorch.float64)
    with context:
        assert not minitorch.is_autocast_enabled("cpu")


def test_unknown_device_type_is_refused() -> None:
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        minitorch.autocast("tpu")


# ---- GradScaler, step by step against PyTorch's ----

#: the steps' gradients are multiplied by these; inf makes a step overflow
GRADIENT_FACTORS = [1.0, 1.0, math.inf, 1.0, 1.0, 1.0, math.nan, 1.0]


def scaler_run(lib: ModuleType) -> list[tuple[float, list[float], int]]:
    """SGD with a GradScaler of growth interval 2 through steps some of which overflow."""
    weight = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5]))
    optimizer = lib.optim.SGD([weight], lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    history = []
    for factor in GRADIENT_FACTORS:
        optimizer.zero_grad()
        loss = (weight * weight).sum() * factor
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        history.append((scaler.get_scale(), weight.detach().tolist(), scaler._get_growth_tracker()))
    return history


def test_grad_scaler_trajectory_as_torch(torch_ref: ModuleType) -> None:
    ours, theirs = scaler_run(minitorch), scaler_run(torch_ref)
    assert [(s, g) for s, _, g in ours] == [(s, g) for s, _, g in theirs]
    for (_, w_ours, _), (_, w_theirs, _) in zip(ours, theirs):
        np.testing.assert_allclose(w_ours, w_theirs, rtol=1e-6)


def test_unscale_then_clip_then_step_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        weight = lib.nn.Parameter(lib.tensor([3.0, 4.0]))
        optimizer = lib.optim.SGD([weight], lr=1.0)
        scaler = lib.amp.GradScaler("cpu", init_scale=1024.0)
        scaler.scale((weight * weight).sum()).backward()
        scaler.unscale_(optimizer)
        lib.nn.utils.clip_grad_norm_([weight], max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        results.append((weight.detach().tolist(), scaler.state_dict()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1]


@pytest.mark.parametrize("misuse", ["unscale twice", "unscale after step", "step twice", "update before scale"])
def test_misuse_raises_torch_error(misuse: str, torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        weight = lib.nn.Parameter(lib.tensor([1.0]))
        optimizer = lib.optim.SGD([weight], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        if misuse != "update before scale":
            scaler.scale(weight.sum()).backward()
        with pytest.raises((RuntimeError, AssertionError)) as caught:
            if misuse == "unscale twice":
                scaler.unscale_(optimizer)
                scaler.unscale_(optimizer)
            elif misuse == "unscale after step":
                scaler.step(optimizer)
                scaler.unscale_(optimizer)
            elif misuse == "step twice":
                scaler.step(optimizer)
                scaler.step(optimizer)
            else:
                scaler.update()
        messages.append((type(caught.value).__name__, str(caught.value)))
    assert messages[0] == messages[1]


def test_state_dict_round_trip_and_disabled_scaler(torch_ref: ModuleType) -> None:
    scaler = minitorch.amp.GradScaler("cpu", init_scale=64.0, growth_interval=3)
    state = scaler.state_dict()
    assert state == torch_ref.amp.GradScaler("cpu", init_scale=64.0, growth_interval=3).state_dict()
    other = minitorch.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.state_dict() == state
    disabled = minitorch.amp.GradScaler("cpu", enabled=False)
    assert disabled.state_dict() == {} and disabled.get_scale() == 1.0
    with pytest.raises(RuntimeError, match="disabled GradScaler"):
        disabled.load_state_dict(state)
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        other.load_state_dict({})


def test_cuda_amp_names_are_deprecated_spellings() -> None:
    with pytest.warns(FutureWarning, match="torch.amp.GradScaler"):
        scaler = minitorch.cuda.amp.GradScaler(enabled=False)
    assert not scaler.is_enabled()
    with pytest.warns(FutureWarning, match="torch.amp.autocast"):
        minitorch.cuda.amp.autocast(enabled=False)
