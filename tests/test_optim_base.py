"""The ``Optimizer`` contract: param groups, zero_grad, closures, in-place updates, state_dict.

Checked against PyTorch where it defines the behaviour (layouts, error types and words).
"""

from __future__ import annotations

import copy
import io
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.optim import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

from test_optim_trajectories import RICH_OPTIONS, _problem, objective

ROUND_TRIP_STEPS = 4
#: the state each optimizer keeps per parameter (PyTorch's names), for the rich options
STATE_KEYS = {
    "SGD": {"momentum_buffer"},
    "Adam": {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
    "AdamW": {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
    "RMSprop": {"step", "square_avg", "momentum_buffer", "grad_avg"},
    "Adagrad": {"step", "sum"},
}


def _leaf(values: Any, lib: Any = minitorch) -> Any:
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


class _Run:
    """Parameters, data and an optimizer over them; ``steps(n)`` trains ``n`` steps."""

    def __init__(self, lib: Any, name: str, options: dict[str, Any], start: list[np.ndarray] | None = None) -> None:
        data = _problem()
        start = start or [data["weight"], data["bias"]]
        self.lib = lib
        self.params = [_leaf(value, lib) for value in start]
        self.inputs = lib.tensor(data["inputs"], dtype=lib.float64)
        self.targets = lib.tensor(data["targets"], dtype=lib.float64)
        self.maximize = options.get("maximize", False)
        self.optimizer = getattr(lib.optim, name)(self.params, **options)

    def steps(self, count: int) -> list[np.ndarray]:
        for _ in range(count):
            self.optimizer.zero_grad()
            objective(self.lib, *self.params, self.inputs, self.targets, self.maximize).backward()
            self.optimizer.step()
        return [p.detach().numpy().copy() for p in self.params]


# ---- state_dict ----


@pytest.mark.task("6.5")
@pytest.mark.parametrize("name", sorted(RICH_OPTIONS))
def test_state_dict_layout_matches_torch(torch_ref: Any, name: str) -> None:
    options = RICH_OPTIONS[name][1]
    ours, theirs = _Run(minitorch, name, options), _Run(torch_ref, name, options)
    ours.steps(2)
    theirs.steps(2)
    mine, reference = ours.optimizer.state_dict(), theirs.optimizer.state_dict()
    assert list(mine) == ["state", "param_groups"]
    assert sorted(mine["state"]) == sorted(reference["state"]) == [0, 1]
    for index in mine["state"]:
        assert set(mine["state"][index]) == set(reference["state"][index]) == STATE_KEYS[name]
        for key, value in mine["state"][index].items():
            expected = reference["state"][index][key].detach().numpy()
            np.testing.assert_allclose(value.numpy(), expected, rtol=1e-10, atol=1e-12, err_msg=key)
    (group,) = mine["param_groups"]
    (expected_group,) = reference["param_groups"]
    assert group["params"] == expected_group["params"] == [0, 1]
    for key, value in group.items():
        assert expected_group[key] == value, key


@pytest.mark.task("6.5")
@pytest.mark.parametrize("name", sorted(RICH_OPTIONS))
def test_state_dict_round_trip_continues_identically(name: str) -> None:
    options = RICH_OPTIONS[name][1]
    straight = _Run(minitorch, name, options)
    expected = straight.steps(2 * ROUND_TRIP_STEPS)

    first = _Run(minitorch, name, options)
    halfway = first.steps(ROUND_TRIP_STEPS)
    saved = copy.deepcopy(first.optimizer.state_dict())
    del first
    # a fresh optimizer with different options over new parameter objects at the halfway values
    resumed = _Run(minitorch, name, {}, start=halfway)
    resumed.optimizer.load_state_dict(saved)
    resumed.maximize = options.get("maximize", False)
    got = resumed.steps(ROUND_TRIP_STEPS)
    for value, reference in zip(got, expected):
        np.testing.assert_array_equal(value, reference)
    assert resumed.optimizer.param_groups[0]["lr"] == straight.optimizer.param_groups[0]["lr"]


@pytest.mark.task("6.5")
def test_state_dict_survives_save_and_load() -> None:
    run = _Run(minitorch, "Adam", RICH_OPTIONS["Adam"][1])
    run.steps(2)
    buffer = io.BytesIO()
    minitorch.save(run.optimizer.state_dict(), buffer)
    buffer.seek(0)
    loaded = minitorch.load(buffer)
    other = _Run(minitorch, "Adam", {})
    other.optimizer.load_state_dict(loaded)
    for index, param in enumerate(run.params):
        for key, value in run.optimizer.state[param].items():
            np.testing.assert_array_equal(other.optimizer.state[other.params[index]][key].numpy(), value.numpy())
    assert other.optimizer.param_groups[0]["betas"] == tuple(RICH_OPTIONS["Adam"][1]["betas"])


@pytest.mark.task("6.5")
def test_load_state_dict_copies_and_casts_to_the_parameter_dtype() -> None:
    source = _Run(minitorch, "SGD", RICH_OPTIONS["SGD"][1])
    source.steps(1)
    saved = source.optimizer.state_dict()
    weight = minitorch.zeros(3, 4, dtype=minitorch.float32, requires_grad=True)
    bias = minitorch.zeros(4, dtype=minitorch.float32, requires_grad=True)
    target = SGD([weight, bias], lr=0.1, momentum=0.9)
    target.load_state_dict(saved)
    buffer = target.state[weight]["momentum_buffer"]
    assert buffer.dtype == minitorch.float32
    original = saved["state"][0]["momentum_buffer"]
    np.testing.assert_allclose(buffer.numpy(), original.numpy(), rtol=1e-6)
    with minitorch.no_grad():
        original.fill_(123.0)
    assert not np.any(buffer.numpy() == 123.0), "the loaded state must be a copy"


@pytest.mark.task("6.5")
def test_load_state_dict_rejects_mismatched_groups(torch_ref: Any) -> None:
    saved = SGD([_leaf([1.0]), _leaf([2.0])], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        SGD([_leaf([1.0])], lr=0.1).load_state_dict(saved)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        SGD([{"params": [_leaf([1.0])]}, {"params": [_leaf([2.0])]}], lr=0.1).load_state_dict(saved)
    reference = torch_ref.optim.SGD([_leaf([1.0], torch_ref), _leaf([2.0], torch_ref)], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        torch_ref.optim.SGD([_leaf([1.0], torch_ref)], lr=0.1).load_state_dict(reference)


# ---- param groups and construction errors ----


def test_groups_take_missing_options_from_defaults() -> None:
    a, b = _leaf([1.0]), _leaf([2.0])
    optimizer = SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert optimizer.param_groups[0]["lr"] == 0.1 and optimizer.param_groups[1]["lr"] == 0.5
    assert optimizer.param_groups[1]["momentum"] == 0.9
    assert optimizer.param_groups[1]["params"][0] is b
    c = _leaf([3.0])
    optimizer.add_param_group({"params": [c], "momentum": 0.0})
    assert optimizer.param_groups[2]["lr"] == 0.1 and optimizer.param_groups[2]["momentum"] == 0.0


def test_construction_errors_match_torch(torch_ref: Any) -> None:
    cases = [
        (lambda lib, p: lib.optim.SGD(p, lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
        (lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
        (lambda lib, p: lib.optim.SGD(p, lr=0.1, nesterov=True), ValueError, "Nesterov momentum requires"),
        (lambda lib, p: lib.optim.Adam(p, betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
        (lambda lib, p: lib.optim.Adam(p, betas=(0.9, -0.1)), ValueError, "Invalid beta parameter at index 1: -0.1"),
        (lambda lib, p: lib.optim.AdamW(p, eps=-1.0), ValueError, "Invalid epsilon value: -1.0"),
        (lambda lib, p: lib.optim.Adam(p, weight_decay=-1.0), ValueError, "Invalid weight_decay value: -1.0"),
        (lambda lib, p: lib.optim.RMSprop(p, alpha=-0.1), ValueError, "Invalid alpha value: -0.1"),
        (lambda lib, p: lib.optim.Adagrad(p, lr_decay=-0.1), ValueError, "Invalid lr_decay value: -0.1"),
        (lambda lib, p: lib.optim.Adagrad(p, initial_accumulator_value=-1.0), ValueError,
         "Invalid initial_accumulator_value value: -1.0"),
        (lambda lib, p: lib.optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
        (lambda lib, p: lib.optim.SGD(p[0], lr=0.1), TypeError, "should be an iterable of Tensors or dicts"),
        (lambda lib, p: lib.optim.SGD([{"params": {p[0]}}], lr=0.1), TypeError, "ordered collections"),
        (lambda lib, p: lib.optim.SGD([1.0], lr=0.1), TypeError, "optimizer can only optimize Tensors"),
        (lambda lib, p: lib.optim.SGD([p[0] * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
        (lambda lib, p: lib.optim.SGD([{"params": [p[0]]}, {"params": [p[0]]}], lr=0.1), ValueError,
         "some parameters appear in more than one parameter group"),
    ]
    for make, error, words in cases:
        for lib in (torch_ref, minitorch):
            with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
                make(lib, [_leaf([1.0], lib)])


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.task(task)) for name, (task, _) in sorted(RICH_OPTIONS.items())]
)
def test_updates_in_place_and_skips_parameters_without_grad(name: str) -> None:
    used, unused = _leaf([1.0, -2.0]), _leaf([3.0])
    optimizer = getattr(minitorch.optim, name)([used, unused], lr=0.1)
    storage, version = used._data, used._version
    (used * used).sum().backward()
    optimizer.step()
    assert used._data is storage and used._version > version, "the update must write the same storage"
    assert used.is_leaf and used.requires_grad and used.grad_fn is None
    assert not np.allclose(used.detach().numpy(), [1.0, -2.0])
    np.testing.assert_array_equal(unused.detach().numpy(), [3.0])
    assert unused not in optimizer.state or name == "Adagrad"


def test_zero_grad_sets_none_or_zeros_in_place() -> None:
    p = _leaf([1.0, 2.0])
    optimizer = SGD([p], lr=0.1)
    (p * 3).sum().backward()
    grad = p.grad
    optimizer.zero_grad(set_to_none=False)
    assert p.grad is grad and not p.grad.requires_grad
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    optimizer.zero_grad()
    assert p.grad is None


@pytest.mark.task("6.1")
def test_step_evaluates_the_closure_with_grad_enabled() -> None:
    p = _leaf([2.0])
    optimizer = SGD([p], lr=0.25)

    def closure() -> minitorch.Tensor:
        optimizer.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with minitorch.no_grad():
        loss = optimizer.step(closure)
    assert loss.item() == 4.0
    # p - lr * 2p = 2 - 0.25 * 4
    assert p.item() == 1.0


@pytest.mark.task("6.2")
def test_amsgrad_keeps_the_running_maximum(torch_ref: Any) -> None:
    """A big first gradient then small ones: AMSGrad's denominator must not shrink back."""
    for lib in (minitorch, torch_ref):
        p = _leaf([0.0], lib)
        optimizer = lib.optim.Adam([p], lr=0.1, amsgrad=True)
        for scale in (10.0, 0.1, 0.1):
            optimizer.zero_grad()
            (scale * p).sum().backward()
            optimizer.step()
        maximum = optimizer.state[p]["max_exp_avg_sq"].item()
        assert maximum == pytest.approx((1 - 0.999) * 100.0)


@pytest.mark.task("6.2")
def test_adamw_decay_is_decoupled() -> None:
    """With a zero gradient, Adam with weight decay moves by a full normalised step; AdamW only shrinks."""
    adam_p, adamw_p = _leaf([1.0]), _leaf([1.0])
    for p, cls in ((adam_p, Adam), (adamw_p, AdamW)):
        optimizer = cls([p], lr=0.1, weight_decay=0.5)
        p.grad = minitorch.zeros(1, dtype=minitorch.float64)
        optimizer.step()
    assert adamw_p.item() == pytest.approx(1.0 - 0.1 * 0.5)
    # Adam sees gradient 0.5 * p: m / sqrt(v) = 1, so the step is (almost exactly) lr
    assert adam_p.item() == pytest.approx(1.0 - 0.1, rel=1e-6)


def test_optimizer_base_has_no_update_rule() -> None:
    p = _leaf([1.0])
    optimizer = Optimizer([p], {"lr": 0.1})
    p.grad = minitorch.ones(1, dtype=minitorch.float64)
    with pytest.raises(NotImplementedError):
        optimizer.step()


def test_repr_lists_each_group() -> None:
    text = repr(RMSprop([_leaf([1.0])], lr=0.5))
    assert text.startswith("RMSprop (") and "Parameter Group 0" in text and "lr: 0.5" in text
    assert "params" not in text
    assert repr(Adagrad([{"params": [_leaf([1.0])]}, {"params": [_leaf([1.0])]}])).count("Parameter Group") == 2


@pytest.mark.task("6.2")
def test_updates_run_on_the_cuda_device_too() -> None:
    """Tensor math only: Adam and clipping give the same numbers on 'cuda' (the simulator in CI)."""
    if not minitorch.cuda.is_available():
        pytest.skip("no CUDA device and no simulator")
    results = []
    for device in ("cpu", "cuda"):
        p = minitorch.tensor([1.0, -2.0, 3.0], dtype=minitorch.float64, device=device, requires_grad=True)
        optimizer = Adam([p], lr=0.1, amsgrad=True, weight_decay=0.1)
        for _ in range(3):
            optimizer.zero_grad()
            (p * p * p).sum().backward()
            optimizer.step()
        total = minitorch.nn.utils.clip_grad_norm_([p], 0.1)
        assert p.device.type == device and optimizer.state[p]["exp_avg"].device.type == device
        results.append((p.detach().cpu().numpy(), total.item(), p.grad.cpu().numpy()))
    (cpu_p, cpu_total, cpu_grad), (cuda_p, cuda_total, cuda_grad) = results
    np.testing.assert_allclose(cuda_p, cpu_p, rtol=1e-12)
    assert cuda_total == pytest.approx(cpu_total, rel=1e-12)
    np.testing.assert_allclose(cuda_grad, cpu_grad, rtol=1e-12)
