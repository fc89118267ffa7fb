"""Every learning-rate scheduler against PyTorch: the same sequence of rates, epoch by epoch.

Both frameworks get an optimizer with two param groups (different rates) and the same
scheduler; after each ``optimizer.step(); scheduler.step()`` the rates (and, for
OneCycleLR, the momenta) must agree.
"""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any, Callable

import pytest

import minitorch
from minitorch.optim import lr_scheduler

EPOCHS = 30
REL = 1e-12
GROUP_LRS = (0.1, 0.03)

Factory = Callable[[Any, Any], Any]


def _optimizer(lib: Any, name: str = "SGD", **options: Any) -> Any:
    groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in GROUP_LRS]
    return getattr(lib.optim, name)(groups, **options)


def _step_optimizer(optimizer: Any) -> None:
    """A real optimizer step first, so PyTorch sees the documented order (and does not warn)."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = None
    optimizer.step()


def _rates(lib: Any, make: Factory, epochs: int, optimizer_name: str = "SGD",
           optimizer_options: dict[str, Any] | None = None) -> list[list[float]]:
    optimizer = _optimizer(lib, optimizer_name, **(optimizer_options or {}))
    scheduler = make(lib, optimizer)
    rates = [list(scheduler.get_last_lr())]
    for _ in range(epochs):
        _step_optimizer(optimizer)
        scheduler.step()
        rates.append(list(scheduler.get_last_lr()))
        assert rates[-1] == [group["lr"] for group in optimizer.param_groups]
    return rates


def _assert_same_rates(ours: list[list[float]], theirs: list[list[float]]) -> None:
    assert len(ours) == len(theirs)
    for epoch, (mine, reference) in enumerate(zip(ours, theirs)):
        assert mine == pytest.approx(reference, rel=REL, abs=1e-15), f"epoch {epoch}"


SCHEDULERS: dict[str, Factory] = {
    "StepLR": lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5),
    "StepLR-default-gamma": lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=7),
    "MultiStepLR": lambda lib, opt: lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[3, 8, 8, 20], gamma=0.3),
    "ExponentialLR": lambda lib, opt: lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10),
    "CosineAnnealingLR-eta_min": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7, eta_min=0.01),
    "LambdaLR": lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: 0.95**epoch),
    "LambdaLR-per-group": lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(
        opt, lr_lambda=[lambda epoch: 1.0 / (epoch + 1), lambda epoch: min(1.0, (epoch + 1) / 5)]),
    "LinearLR": lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt),
    "LinearLR-decay": lambda lib, opt: lib.optim.lr_scheduler.LinearLR(
        opt, start_factor=1.0, end_factor=0.2, total_iters=12),
}
SCHEDULER_TASK = "6.6"


@pytest.mark.task(SCHEDULER_TASK)
@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_rates_match_torch(torch_ref: Any, name: str) -> None:
    make = SCHEDULERS[name]
    ours = _rates(minitorch, make, EPOCHS)
    _assert_same_rates(ours, _rates(torch_ref, make, EPOCHS))
    assert len({tuple(rates) for rates in ours}) > 1, "the schedule should change the rate"


@pytest.mark.task(SCHEDULER_TASK)
def test_two_schedulers_chain_like_torch(torch_ref: Any) -> None:
    def both(lib: Any, opt: Any) -> Any:
        warmup = lib.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)
        decay = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        return _Chain(warmup, decay)

    _assert_same_rates(_rates(minitorch, both, EPOCHS), _rates(torch_ref, both, EPOCHS))


class _Chain:
    """Steps several schedulers on one optimizer in turn (what ``ChainedScheduler`` does)."""

    def __init__(self, *schedulers: Any) -> None:
        self.schedulers = schedulers

    def step(self) -> None:
        for scheduler in self.schedulers:
            scheduler.step()

    def get_last_lr(self) -> list[float]:
        return self.schedulers[-1].get_last_lr()


@pytest.mark.task(SCHEDULER_TASK)
@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR-decay"])
def test_step_with_epoch_uses_the_closed_form(torch_ref: Any, name: str) -> None:
    epochs = [3, 9, 4, 15]
    results = []
    for lib in (minitorch, torch_ref):
        scheduler = SCHEDULERS[name](lib, _optimizer(lib))
        rates = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in epochs:
                scheduler.step(epoch)
                rates.append(list(scheduler.get_last_lr()))
        results.append(rates)
    _assert_same_rates(*results)
    with pytest.warns(UserWarning, match="epoch parameter"):
        SCHEDULERS[name](minitorch, _optimizer(minitorch)).step(2)


ONE_CYCLE = {
    "cos": {"max_lr": 0.5, "total_steps": 25},
    "linear-three-phase": {"max_lr": [0.5, 0.2], "total_steps": 25, "anneal_strategy": "linear", "three_phase": True},
    "epochs": {"max_lr": 0.4, "epochs": 4, "steps_per_epoch": 6, "pct_start": 0.25, "div_factor": 10.0},
    "no-momentum-cycle": {"max_lr": 0.5, "total_steps": 20, "cycle_momentum": False},
}


@pytest.mark.parametrize("optimizer_name", ["SGD", "Adam"])
@pytest.mark.parametrize("case", sorted(ONE_CYCLE))
def test_one_cycle_matches_torch(torch_ref: Any, case: str, optimizer_name: str) -> None:
    options = ONE_CYCLE[case]
    total = options.get("total_steps") or options["epochs"] * options["steps_per_epoch"]
    momenta = []
    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib, optimizer_name, **({"momentum": 0.9} if optimizer_name == "SGD" else {}))
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, **options)
        trace = []
        for _ in range(total - 1):
            _step_optimizer(optimizer)
            scheduler.step()
            key = "momentum" if optimizer_name == "SGD" else "betas"
            trace.append((list(scheduler.get_last_lr()), [group[key] for group in optimizer.param_groups]))
        momenta.append(trace)
    ours, theirs = momenta
    for (our_lr, our_momentum), (their_lr, their_momentum) in zip(ours, theirs):
        assert our_lr == pytest.approx(their_lr, rel=REL)
        assert [m[0] if isinstance(m, tuple) else m for m in our_momentum] == pytest.approx(
            [m[0] if isinstance(m, tuple) else m for m in their_momentum], rel=REL)


def test_one_cycle_refuses_to_step_past_the_end() -> None:
    optimizer = _optimizer(minitorch, momentum=0.9)
    scheduler = lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=3)
    scheduler.step()
    scheduler.step()
    scheduler.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        scheduler.step()


PLATEAU = {
    "min-rel": ({}, [1.0, 0.9, 0.9, 0.91, 0.95, 0.9, 0.92, 0.93, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85] * 2),
    "max-abs-cooldown": ({"mode": "max", "threshold_mode": "abs", "threshold": 0.05, "patience": 1, "cooldown": 2,
                          "factor": 0.5}, [0.1, 0.2, 0.22, 0.21, 0.3, 0.3, 0.31, 0.29, 0.5, 0.5, 0.5, 0.5] * 2),
    "min-lr-list": ({"patience": 0, "min_lr": [0.02, 0.001], "factor": 0.5}, [1.0] * 12),
    "eps": ({"patience": 0, "factor": 0.9, "eps": 0.005}, [1.0] * 12),
}


@pytest.mark.task("6.7")
@pytest.mark.parametrize("case", sorted(PLATEAU))
def test_reduce_on_plateau_matches_torch(torch_ref: Any, case: str) -> None:
    options, metrics = PLATEAU[case]
    traces = []
    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)
        trace = []
        for metric in metrics:
            _step_optimizer(optimizer)
            scheduler.step(metric)
            trace.append((list(scheduler.get_last_lr()), scheduler.num_bad_epochs, scheduler.best))
        traces.append(trace)
    for (ours, bad, best), (theirs, their_bad, their_best) in zip(*traces):
        assert ours == pytest.approx(theirs, rel=REL)
        assert (bad, best) == (their_bad, their_best)
    assert traces[0][-1][0] != list(GROUP_LRS), "the case should reduce the rate at least once"


def test_reduce_on_plateau_errors_match_torch(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib)
        with pytest.raises(ValueError, match="Factor should be < 1.0."):
            lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=1.0)
        with pytest.raises(ValueError, match="mode average is unknown!"):
            lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="average")
        with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
            lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, min_lr=[0.1])


@pytest.mark.task(SCHEDULER_TASK)
@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR-eta_min", "LinearLR", "LambdaLR"])
def test_state_dict_round_trip_continues_identically(name: str) -> None:
    make = SCHEDULERS[name]
    expected = _rates(minitorch, make, EPOCHS)

    optimizer = _optimizer(minitorch)
    scheduler = make(minitorch, optimizer)
    for _ in range(EPOCHS // 2):
        _step_optimizer(optimizer)
        scheduler.step()
    optimizer_state = copy.deepcopy(optimizer.state_dict())
    scheduler_state = copy.deepcopy(scheduler.state_dict())
    assert "optimizer" not in scheduler_state

    resumed_optimizer = _optimizer(minitorch)
    resumed = make(minitorch, resumed_optimizer)
    resumed_optimizer.load_state_dict(optimizer_state)
    resumed.load_state_dict(scheduler_state)
    rates = [list(resumed.get_last_lr())]
    for _ in range(EPOCHS - EPOCHS // 2):
        _step_optimizer(resumed_optimizer)
        resumed.step()
        rates.append(list(resumed.get_last_lr()))
    _assert_same_rates(rates, expected[EPOCHS // 2:])


@pytest.mark.task(SCHEDULER_TASK)
def test_lambda_state_dict_saves_callable_objects_only(torch_ref: Any) -> None:
    class Warmup:
        def __init__(self, steps: int) -> None:
            self.steps = steps

        def __call__(self, epoch: int) -> float:
            return min(1.0, (epoch + 1) / self.steps)

    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.LambdaLR(optimizer, [Warmup(4), lambda epoch: 1.0])
        state = scheduler.state_dict()
        assert state["lr_lambdas"] == [{"steps": 4}, None]
        state["lr_lambdas"][0] = {"steps": 8}
        scheduler.load_state_dict(state)
        assert scheduler.lr_lambdas[0].steps == 8


def test_scheduler_errors_match_torch(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib)
        with pytest.raises(TypeError, match="list is not an Optimizer"):
            lib.optim.lr_scheduler.StepLR([], step_size=1)
        with pytest.raises(KeyError, match="initial_lr"):
            lib.optim.lr_scheduler.StepLR(optimizer, step_size=1, last_epoch=3)
        with pytest.raises(ValueError, match="Starting multiplicative factor"):
            lib.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.0)
        with pytest.raises(ValueError, match="Ending multiplicative factor"):
            lib.optim.lr_scheduler.LinearLR(optimizer, end_factor=1.5)
        with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
            lib.optim.lr_scheduler.LambdaLR(optimizer, [lambda epoch: 1.0])
        with pytest.raises(ValueError, match="You must define either total_steps OR"):
            lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1)


@pytest.mark.task(SCHEDULER_TASK)
def test_scheduler_drives_training_in_the_optimizer() -> None:
    """The rate the scheduler sets is the one the next SGD step uses."""
    p = minitorch.tensor([0.0], dtype=minitorch.float64, requires_grad=True)
    optimizer = minitorch.optim.SGD([p], lr=1.0)
    scheduler = lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for _ in range(3):
        optimizer.zero_grad()
        p.sum().backward()  # gradient 1: each step moves p by -lr
        optimizer.step()
        scheduler.step()
    assert p.item() == pytest.approx(-(1.0 + 0.5 + 0.25))
    assert scheduler.get_last_lr() == [0.125]
    assert math.isclose(optimizer.param_groups[0]["initial_lr"], 1.0)
