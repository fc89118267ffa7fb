"""``nn.utils.prune`` against ``torch.nn.utils.prune`` on the same weights: pruned values, masks,
gradients reaching ``weight_orig``, ``state_dict`` keys before and after ``remove``, containers
from pruning twice, global pruning; and the counts random pruning must hit."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

pytestmark = pytest.mark.task("11.1")

WEIGHT = np.array([[0.3, -1.2, 0.05, 2.0], [-0.7, 0.11, 1.5, -0.02], [0.9, -0.4, 0.6, 1.1]])
BIAS = [0.1, -0.2, 0.3]
CONV = np.arange(2 * 3 * 2 * 2, dtype=np.float64).reshape(2, 3, 2, 2) * np.array([1, -1]).repeat(12).reshape(2, 3, 2, 2)


@pytest.fixture(scope="module")
def prune_ref(torch_ref: ModuleType) -> ModuleType:
    import torch.nn.utils.prune  # noqa: F401 - a submodule torch does not import by itself

    return torch_ref


def linear(lib: ModuleType) -> Any:
    module = lib.nn.Linear(4, 3).double()
    with lib.no_grad():
        module.weight.copy_(lib.tensor(WEIGHT, dtype=lib.float64))
        module.bias.copy_(lib.tensor(BIAS, dtype=lib.float64))
    return module


def state(module: Any) -> dict[str, list]:
    return {key: value.tolist() for key, value in module.state_dict().items()}


PLANS = {
    "l1 fraction": lambda P, m: P.l1_unstructured(m, "weight", amount=0.25),
    "l1 count, bias": lambda P, m: P.l1_unstructured(m, "bias", amount=1),
    "l1 with importance scores": lambda P, m: P.l1_unstructured(m, "weight", amount=3,
                                                                importance_scores=m.weight.detach().flip(1)),
    "ln structured rows": lambda P, m: P.ln_structured(m, "weight", amount=1, n=2, dim=0),
    "ln structured columns, L1": lambda P, m: P.ln_structured(m, "weight", amount=0.5, n=1, dim=1),
    "l1 then ln (container)": lambda P, m: (P.l1_unstructured(m, "weight", amount=0.25),
                                            P.ln_structured(m, "weight", amount=1, n=2, dim=0)),
    "ln then l1 (container)": lambda P, m: (P.ln_structured(m, "weight", amount=1, n=2, dim=1),
                                            P.l1_unstructured(m, "weight", amount=2)),
    "custom mask": lambda P, m: P.custom_from_mask(m, "weight", mask=(m.weight > 0).double()),
    "identity": lambda P, m: P.identity(m, "weight"),
}


@pytest.mark.parametrize("plan", sorted(PLANS))
def test_pruning_as_torch(plan: str, prune_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, prune_ref):
        module = linear(lib)
        PLANS[plan](lib.nn.utils.prune, module)
        (module(lib.ones(2, 4, dtype=lib.float64)) ** 2).sum().backward()
        grads = {name: p.grad.tolist() for name, p in module.named_parameters()}
        before = state(module)
        pruned = lib.nn.utils.prune.is_pruned(module)
        for name in ("weight", "bias"):
            if hasattr(module, name + "_mask"):
                lib.nn.utils.prune.remove(module, name)
        results.append((before, grads, pruned, state(module), list(dict(module.named_parameters()))))
    (before, grads, pruned, after, names), (t_before, t_grads, t_pruned, t_after, t_names) = results
    assert (list(before), pruned, list(after), names) == (list(t_before), t_pruned, list(t_after), t_names)
    assert before == t_before and after == t_after  # masks and pruned values: exact
    assert list(grads) == list(t_grads)
    for name in grads:
        np.testing.assert_allclose(grads[name], t_grads[name], rtol=1e-14)


def test_a_pruned_state_dict_loads_into_torch_and_back(prune_ref: ModuleType) -> None:
    ours, theirs = linear(minitorch), linear(prune_ref)
    minitorch.nn.utils.prune.l1_unstructured(ours, "weight", amount=0.5)
    prune_ref.nn.utils.prune.identity(theirs, "weight")
    theirs.load_state_dict({k: prune_ref.tensor(np.asarray(v.tolist())) for k, v in ours.state_dict().items()})
    theirs(prune_ref.ones(1, 4, dtype=prune_ref.float64))  # the hook recomputes weight from the loaded mask
    assert theirs.weight.tolist() == ours.weight.tolist()
    back = linear(minitorch)
    minitorch.nn.utils.prune.identity(back, "weight")
    back.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    back(minitorch.ones(1, 4, dtype=minitorch.float64))  # the hook recomputes weight from the loaded mask
    assert back.weight.tolist() == ours.weight.tolist()


def test_conv_channels_and_global_pruning_as_torch(prune_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, prune_ref):
        conv = lib.nn.Conv2d(3, 2, 2).double()
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(CONV))
        lib.nn.utils.prune.ln_structured(conv, "weight", amount=1, n=float("inf"), dim=1)
        first, second = linear(lib), linear(lib)
        with lib.no_grad():
            second.weight.mul_(0.5)
        lib.nn.utils.prune.global_unstructured([(first, "weight"), (second, "weight")],
                                               pruning_method=lib.nn.utils.prune.L1Unstructured, amount=0.5)
        results.append((conv.weight_mask.tolist(), first.weight_mask.tolist(), second.weight_mask.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("amount", [0.0, 0.3, 5, 12])
def test_random_unstructured_prunes_exactly_amount(amount: float) -> None:
    module = linear(minitorch)
    minitorch.nn.utils.prune.random_unstructured(module, "weight", amount=amount)
    expected = amount if isinstance(amount, int) else round(amount * 12)
    assert int((module.weight_mask == 0).sum()) == expected


def test_random_structured_prunes_whole_channels() -> None:
    module = linear(minitorch)
    minitorch.nn.utils.prune.random_structured(module, "weight", amount=2, dim=1)
    columns = module.weight_mask.sum(0).tolist()
    assert sorted(columns) == [0.0, 0.0, 3.0, 3.0]


@pytest.mark.parametrize(("amount", "error", "words"), [
    (1.5, ValueError, "amount=1.5 should either be a float in the range"),
    (-1, ValueError, "amount=-1 should either be a float in the range"),
    (13, ValueError, "amount=13 should be smaller than the number of parameters to prune=12"),
    ("half", TypeError, "Invalid type for amount"),
])
def test_bad_amounts_as_torch(amount: Any, error: type, words: str, prune_ref: ModuleType) -> None:
    for lib in (minitorch, prune_ref):
        with pytest.raises(error, match=words):
            lib.nn.utils.prune.l1_unstructured(linear(lib), "weight", amount=amount)


def test_a_failed_pruning_leaves_the_module_as_torch_does(prune_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, prune_ref):
        module = linear(lib)
        with pytest.raises(ValueError):
            lib.nn.utils.prune.l1_unstructured(module, "weight", amount=13)
        results.append((state(module), list(dict(module.named_parameters())), lib.nn.utils.prune.is_pruned(module)))
    assert results[0] == results[1] and not results[0][2]


def test_remove_without_pruning_names_the_parameter() -> None:
    with pytest.raises(ValueError, match="Parameter 'weight' of module .* has to be pruned before pruning can be removed"):
        minitorch.nn.utils.prune.remove(linear(minitorch), "weight")
