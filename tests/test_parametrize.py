"""``nn.utils.parametrize`` and ``parametrizations.weight_norm`` against PyTorch's: the class swap,
the parametrized value and its gradient to ``original``, assignment through ``right_inverse``,
``state_dict`` keys, removal, weight norm's ``original0``/``original1``, and the errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

W = np.array([[0.3, -1.2, 0.05], [-0.7, 0.11, 1.5], [0.9, -0.4, 0.6]])


@pytest.fixture(scope="module")
def torch_p(torch_ref: ModuleType) -> ModuleType:
    import torch.nn.utils.parametrizations  # noqa: F401 - submodules torch does not import by itself
    import torch.nn.utils.parametrize  # noqa: F401

    return torch_ref


def layers(lib: ModuleType) -> tuple[type, type]:
    class Symmetric(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a: Any) -> Any:
            return a.triu()

    class Scale(lib.nn.Module):
        def forward(self, x: Any) -> Any:
            return x * 2

        def right_inverse(self, a: Any) -> Any:
            return a / 2

    return Symmetric, Scale


def linear(lib: ModuleType, rows: int = 3) -> Any:
    module = lib.nn.Linear(3, rows).double()
    with lib.no_grad():
        module.weight.copy_(lib.tensor(W[:rows], dtype=lib.float64))
        module.bias.zero_()
    return module


def story(lib: ModuleType) -> list[Any]:
    """Register two parametrizations, train a step's gradient, assign, remove: what each step shows."""
    parametrize = lib.nn.utils.parametrize
    symmetric, scale = layers(lib)
    module = linear(lib)
    parametrize.register_parametrization(module, "weight", symmetric())
    parametrize.register_parametrization(module, "weight", scale())
    (module(lib.ones(2, 3, dtype=lib.float64)) ** 2).sum().backward()
    seen = [type(module).__name__, module.weight.tolist(), list(module.state_dict()),
            module.parametrizations.weight.original.grad.tolist(), parametrize.is_parametrized(module),
            parametrize.is_parametrized(module, "bias"), parametrize.type_before_parametrizations(module).__name__]
    module.weight = lib.tensor(np.eye(3) * 4, dtype=lib.float64)
    seen += [module.parametrizations.weight.original.tolist(), module.weight.tolist()]
    parametrize.remove_parametrizations(module, "weight")
    seen += [type(module).__name__, list(module.state_dict()), module.weight.tolist(), type(module.weight).__name__]
    return seen


def test_register_assign_and_remove_as_torch(torch_p: ModuleType) -> None:
    ours, theirs = story(minitorch), story(torch_p)
    for a, b in zip(ours, theirs):
        if isinstance(b, list) and b and isinstance(b[0], list):
            np.testing.assert_allclose(a, b, rtol=1e-13)
        else:
            assert a == b


@pytest.mark.parametrize("leave", [True, False])
def test_remove_leaves_the_parametrized_or_the_original_value_as_torch(leave: bool, torch_p: ModuleType) -> None:
    values = []
    for lib in (minitorch, torch_p):
        module = linear(lib)
        lib.nn.utils.parametrize.register_parametrization(module, "weight", layers(lib)[0]())
        lib.nn.utils.parametrize.remove_parametrizations(module, "weight", leave_parametrized=leave)
        values.append(module.weight.tolist())
    assert values[0] == values[1]


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_as_torch(dim: Any, torch_p: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_p):
        module = linear(lib, rows=2)
        lib.nn.utils.parametrizations.weight_norm(module, dim=dim)
        (module(lib.ones(1, 3, dtype=lib.float64)) ** 2).sum().backward()
        weights = module.parametrizations.weight
        results.append((list(module.state_dict()), weights.original0.tolist(), weights.original0.grad.tolist(),
                        weights.original1.grad.tolist(), module.weight.tolist()))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_cached_computes_each_tensor_once() -> None:
    calls = []

    class Counting(minitorch.nn.Module):
        def forward(self, x: Any) -> Any:
            calls.append(1)
            return x * 1

    module = linear(minitorch)
    minitorch.nn.utils.parametrize.register_parametrization(module, "weight", Counting())
    calls.clear()
    with minitorch.nn.utils.parametrize.cached():
        first, second = module.weight, module.weight
    assert len(calls) == 1 and first is second
    module.weight  # noqa: B018 - outside the block: computed again
    assert len(calls) == 2


@pytest.mark.parametrize("case", ["shape", "missing", "remove unregistered"])
def test_errors_as_torch(case: str, torch_p: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_p):
        class Flatten(lib.nn.Module):
            def forward(self, x: Any) -> Any:
                return x.reshape(-1)

        module = linear(lib)
        with pytest.raises(ValueError) as caught:
            if case == "shape":
                lib.nn.utils.parametrize.register_parametrization(module, "weight", Flatten())
            elif case == "missing":
                lib.nn.utils.parametrize.register_parametrization(module, "kernel", Flatten())
            else:
                lib.nn.utils.parametrize.remove_parametrizations(module, "weight")
        messages.append(str(caught.value).split("\n")[0].replace("minitorch", "torch").split("'")[0])
    assert messages[0] == messages[1]


def spectral(lib: ModuleType, u: list[float], v: list[float]) -> tuple[Any, list[Any]]:
    module = linear(lib, rows=2)
    lib.nn.utils.parametrizations.spectral_norm(module)
    power = module.parametrizations.weight[0]
    with lib.no_grad():  # the same start for both: the registration's random vectors differ
        power._u.copy_(lib.tensor(u, dtype=lib.float64))
        power._v.copy_(lib.tensor(v, dtype=lib.float64))
    (module(lib.ones(1, 3, dtype=lib.float64)) ** 2).sum().backward()
    return module, [list(module.state_dict()), module.parametrizations.weight.original.grad.tolist(),
                    module.weight.tolist(), power._u.tolist(), power._v.tolist()]


def test_spectral_norm_as_torch(torch_p: ModuleType) -> None:
    start = ([0.6, 0.8], [3 ** -0.5] * 3)
    (_, ours), (_, theirs) = spectral(minitorch, *start), spectral(torch_p, *start)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_spectral_norm_converges_to_unit_spectral_norm_and_rests_in_eval() -> None:
    module, _ = spectral(minitorch, [0.6, 0.8], [3 ** -0.5] * 3)
    for _ in range(30):
        module.weight  # noqa: B018 - each read in training takes a power-iteration step
    assert np.linalg.norm(module.weight.detach().numpy(), 2) == pytest.approx(1.0, abs=1e-9)
    module.eval()
    before = module.parametrizations.weight[0]._u.tolist()
    module.weight  # noqa: B018
    assert module.parametrizations.weight[0]._u.tolist() == before
