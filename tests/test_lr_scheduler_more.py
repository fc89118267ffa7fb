"""ConstantLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, SequentialLR and
ChainedScheduler against PyTorch: the same rates epoch by epoch."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import minitorch
from tests.test_lr_scheduler import EPOCHS, Factory, _assert_same_rates, _optimizer, _rates, _step_optimizer


def _sequential(lib: Any, opt: Any) -> Any:
    schedulers = lib.optim.lr_scheduler
    return schedulers.SequentialLR(opt, [schedulers.LinearLR(opt, start_factor=0.1, total_iters=4),
                                         schedulers.ExponentialLR(opt, gamma=0.9),
                                         schedulers.CosineAnnealingLR(opt, T_max=6)], milestones=[5, 12])


def _chained(lib: Any, opt: Any) -> Any:
    schedulers = lib.optim.lr_scheduler
    return schedulers.ChainedScheduler([schedulers.ConstantLR(opt, factor=0.5, total_iters=3),
                                        schedulers.ExponentialLR(opt, gamma=0.95),
                                        schedulers.StepLR(opt, step_size=7, gamma=0.5)])


MORE: dict[str, Factory] = {
    "ConstantLR": lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt),
    "ConstantLR-options": lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=0.25, total_iters=9),
    "MultiplicativeLR": lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.9),
    "MultiplicativeLR-per-group": lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(
        opt, [lambda epoch: 0.9, lambda epoch: 1.0 - 0.01 * epoch]),
    "PolynomialLR": lambda lib, opt: lib.optim.lr_scheduler.PolynomialLR(opt),
    "PolynomialLR-power": lambda lib, opt: lib.optim.lr_scheduler.PolynomialLR(opt, total_iters=12, power=2.5),
    "CosineAnnealingWarmRestarts": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5),
    "CosineAnnealingWarmRestarts-mult": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        opt, T_0=3, T_mult=2, eta_min=0.001),
    "CyclicLR": lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4,
                                                                 cycle_momentum=False),
    "CyclicLR-triangular2": lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        opt, base_lr=[0.01, 0.002], max_lr=[0.1, 0.05], step_size_up=3, step_size_down=5, mode="triangular2",
        cycle_momentum=False),
    "CyclicLR-exp_range": lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9, cycle_momentum=False),
    "CyclicLR-scale_fn": lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 1 / (1 + 0.1 * x),
        scale_mode="iterations", cycle_momentum=False),
    "SequentialLR": _sequential,
    "ChainedScheduler": _chained,
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_more_schedulers_match_torch(torch_ref: Any, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SequentialLR's hand-over uses step(0), deprecated in both
        ours = _rates(minitorch, MORE[name], EPOCHS)
        theirs = _rates(torch_ref, MORE[name], EPOCHS)
    _assert_same_rates(ours, theirs)
    assert len({tuple(rates) for rates in ours}) > 1  # the rate really changes


@pytest.mark.parametrize("optimizer_name, options", [("SGD", {"momentum": 0.9}), ("Adam", {})])
def test_cyclic_lr_cycles_momentum_like_torch(torch_ref: Any, optimizer_name: str, options: dict[str, Any]) -> None:
    histories = []
    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib, optimizer_name, **options)
        scheduler = lib.optim.lr_scheduler.CyclicLR(optimizer, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                                    base_momentum=0.7, max_momentum=0.95)
        history = []
        for _ in range(EPOCHS):
            _step_optimizer(optimizer)
            scheduler.step()
            group = optimizer.param_groups[0]
            history.append((scheduler.get_last_lr(), group.get("momentum"), group.get("betas")))
        histories.append(history)
    for (lrs, momentum, betas), (ref_lrs, ref_momentum, ref_betas) in zip(*histories):
        assert lrs == pytest.approx(ref_lrs, rel=1e-12)
        assert momentum == (None if ref_momentum is None else pytest.approx(ref_momentum, rel=1e-12))
        assert betas == (None if ref_betas is None else pytest.approx(ref_betas, rel=1e-12))


def test_warm_restarts_with_fractional_epochs_match_torch(torch_ref: Any) -> None:
    sequences = []
    for lib in (minitorch, torch_ref):
        optimizer = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=3)
        rates = []
        for epoch in [0.25, 0.5, 1.75, 2.0, 3.5, 7.9, 8.0, 10.0, 30.5]:
            _step_optimizer(optimizer)
            scheduler.step(epoch)
            rates.append(scheduler.get_last_lr())
        sequences.append(rates)
    _assert_same_rates(*sequences)


@pytest.mark.parametrize("make, message", [
    (lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=1.5),
     "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0),
     "Expected positive integer T_0, but got 0"),
    (lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0),
     "Expected integer T_mult >= 1, but got 0"),
    (lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(opt, [lib.optim.lr_scheduler.ConstantLR(opt)], [3]),
     "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone"),
    (lambda lib, opt: lib.optim.lr_scheduler.ChainedScheduler([]),
     "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
])
def test_bad_arguments_raise_as_torch(torch_ref: Any, make: Any, message: str) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            make(lib, _optimizer(lib))


def test_sequential_state_dict_round_trip() -> None:
    optimizer = _optimizer(minitorch)
    scheduler = _sequential(minitorch, optimizer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(7):
            _step_optimizer(optimizer)
            scheduler.step()
        saved = scheduler.state_dict()
        expected = []
        for _ in range(8):
            scheduler.step()
            expected.append(scheduler.get_last_lr())
        other_optimizer = _optimizer(minitorch)
        other = _sequential(minitorch, other_optimizer)
        other.load_state_dict(saved)
        for group, lr in zip(other_optimizer.param_groups, saved["_last_lr"]):
            group["lr"] = lr
        got = []
        for _ in range(8):
            other.step()
            got.append(other.get_last_lr())
    assert got == expected
