"""Everyday PyTorch API (Tensor.type, mm, mul, matmul keywords, default device, accelerator)
against PyTorch as the oracle."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import pytest

import minitorch


def _outcome(scenario: Callable[[ModuleType], Any], lib: ModuleType) -> Any:
    try:
        return scenario(lib)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return (type(error).__name__, str(error).splitlines()[0])


def _type_names(lib: ModuleType) -> Any:
    x = lib.ones(2)
    return (x.type(), x.type(lib.long).type(), x.type("torch.LongTensor").dtype == lib.int64,
            x.type(lib.float32) is x, x.double().type(), x.type(lib.float64).type_as(x).type())


def _bad_type_name(lib: ModuleType) -> Any:
    lib.ones(2).type("torch.Nonsense")


def _mm_mul_matmul(lib: ModuleType) -> Any:
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
    b = lib.tensor([[0.5, -1.0], [2.0, 1.0]], dtype=lib.float64)
    out = lib.empty(2, 2, dtype=lib.float64)
    returned = lib.matmul(input=a, other=b, out=out)
    return (a.mm(b).tolist(), lib.mul(a, b).tolist(), lib.multiply(a, 2).tolist(), a.multiply(b).tolist(),
            returned is out, out.tolist())


def _matmul_out_with_grad(lib: ModuleType) -> Any:
    a = lib.ones(2, 2, requires_grad=True)
    lib.matmul(a, a, out=lib.empty(2, 2))


def _default_device(lib: ModuleType) -> Any:
    before = str(lib.get_default_device())
    lib.set_default_device("cpu")
    made = str(lib.zeros(2).device)
    with lib.device("cpu"):
        inside = str(lib.ones(1).device)
    lib.set_default_device(None)
    return before, made, inside, str(lib.get_default_device())


def _new_and_as(lib: ModuleType) -> Any:
    x = lib.ones(2, 3, dtype=lib.float64)
    return (x.new_zeros(2).tolist(), x.new_ones((1, 2)).dtype == lib.float64, x.new_full((2,), 7).tolist(),
            tuple(x.new_empty(3).shape), x.new_tensor([1, 2]).dtype == lib.float64,
            tuple(x.view_as(lib.empty(3, 2)).shape), tuple(lib.ones(1, 3).expand_as(x).shape),
            tuple(x.reshape_as(lib.empty(6)).shape))


SCENARIOS = {f.__name__.lstrip("_"): f for f in [
    _type_names, _bad_type_name, _mm_mul_matmul, _matmul_out_with_grad, _default_device, _new_and_as,
]}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_matches_torch(name: str, torch_ref: ModuleType) -> None:
    ours, theirs = _outcome(SCENARIOS[name], minitorch), _outcome(SCENARIOS[name], torch_ref)
    assert ours == theirs, f"minitorch: {ours!r}\ntorch:     {theirs!r}"


def test_accelerator_reports_the_cuda_device_minitorch_can_use() -> None:
    available = minitorch.cuda.is_available()
    assert minitorch.accelerator.is_available() is available
    if available:
        assert minitorch.accelerator.current_accelerator() == minitorch.device("cuda")
        assert minitorch.accelerator.device_count() >= 1
    else:
        assert minitorch.accelerator.current_accelerator() is None
        assert minitorch.accelerator.device_count() == 0



def test_mps_is_never_available_and_never_built(torch_ref: Any) -> None:
    """minitorch has no Metal backend; torch on this (non-Apple) machine says the same."""
    assert minitorch.backends.mps.is_available() is torch_ref.backends.mps.is_available() is False
    assert minitorch.backends.mps.is_built() is False
